"""Kernel-enforced limits for the process that runs learner code (Linux Landlock).

Python's audit hooks (gradtutor.isolation.policy) only see what Python code does;
TensorFlow's own file functions (tf.io.read_file, tf.io.gfile.remove) are C++
and bypass them. Landlock is enforced by the kernel on every system call, needs
no privileges, and cannot be lifted by the restricted process. Once applied:

* files can be written, created, renamed or removed only inside the job's
  scratch folder (and /dev/null);
* gradtutor's reference implementation and the solution notebooks cannot be
  read at all;
* no TCP connections, and no signals to processes outside the job (when the
  kernel is new enough: Landlock ABI 4 and 6).

Where Landlock is missing (an old kernel, not Linux), `restrict` returns False
and the audit-hook guards are the only layer.
"""
from __future__ import annotations

import ctypes
import os

_SYS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
_PR_SET_NO_NEW_PRIVS = 38
_RULE_PATH_BENEATH = 1

# Filesystem access rights, by the ABI version that introduced them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_ABI_FS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
_READ = EXECUTE | READ_FILE | READ_DIR
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


STARTED_BY = "GRADTUTOR_STARTED_BY"  # the starter's pid, set by the starter (see started_by)


def started_by(environ: dict) -> dict:
    """`environ` for a process about to be started that calls die_with_parent: it names this one as its parent."""
    return {**environ, STARTED_BY: str(os.getpid())}


def die_with_parent(parent: int | None = None) -> None:
    """Be killed when the process that started this one dies, so nothing is left running.

    The chain is the caller (CLI, notebook kernel) → judge or fork server → job child: if
    the caller is killed outright, everything it started goes with it. (Linux only.)
    A parent that died before this call sends no signal: when the starter is known — named
    by a forking parent (`parent`, its pid read before the fork) or by a starter in the
    environment (STARTED_BY) — and is no longer the parent, this process ends here instead of
    living on as an orphan (a fork server would otherwise import TensorFlow for nobody, and a
    job child forked as its server was killed would wait for cells that never come).
    """
    named = os.environ.pop(STARTED_BY, "")  # popped: this process's own children have another parent
    expected = str(parent) if parent is not None else named
    try:
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if expected.isdigit() and os.getppid() != int(expected):
        os._exit(0)


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 where there is none."""
    numbers = _SYS.get(os.uname().machine)
    if numbers is None:
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    version = libc.syscall(numbers[0], None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(version), 0)


def readable_paths(hidden: list[str]) -> list[str]:
    """Everything under / except the hidden folders: their siblings, and their ancestors' siblings."""
    allowed = ["/"]
    for secret in (os.path.realpath(h) for h in hidden):
        if not os.path.exists(secret):
            continue
        carved = []
        for root in allowed:
            carved.extend(_carve(root, secret))
        allowed = carved
    return allowed


def _carve(root: str, secret: str) -> list[str]:
    if root == secret:
        return []
    if not (secret + os.sep).startswith(root.rstrip(os.sep) + os.sep):
        return [root]
    paths = []
    try:
        names = os.listdir(root)
    except OSError:
        return []
    for name in names:
        child = os.path.join(root, name)
        if os.path.islink(child):
            target = os.path.realpath(child)
            if (secret + os.sep).startswith(target.rstrip(os.sep) + os.sep) or target == secret:
                continue  # a link that leads to the secret's ancestors: leave it out
            paths.append(child)
        else:
            paths.extend(_carve(child, secret))
    return paths


def restrict(writable: str | list[str], hidden: list[str], list_hidden: bool = False) -> bool:
    """Apply the limits to this process (and its future children). True when they hold.

    writable: the folder (or folders) where files may be written; hidden: folders and files
    that may not even be read. list_hidden: folders may still be listed everywhere, the hidden
    ones included (names only, never contents) — for a process that has yet to import its
    modules: Python's import system lists the folders on sys.path, and a hidden folder's
    parent (the checkout holding gradtutor/course/references) can only be listed with all its children.
    """
    writable = [writable] if isinstance(writable, str) else list(writable)
    version = abi_version()
    if version < 1:
        return False
    create, add_rule, restrict_self = _SYS[os.uname().machine]
    libc = ctypes.CDLL(None, use_errno=True)
    handled_fs = _ABI_FS.get(version, _ABI_FS[5])
    attr = _RulesetAttr(handled_fs, 0, 0)
    size = 8
    if version >= 4:
        attr.handled_access_net, size = _NET_BIND_TCP | _NET_CONNECT_TCP, 16
    if version >= 6:
        attr.scoped, size = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL, 24
    ruleset = libc.syscall(create, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        for path in readable_paths(hidden):
            _allow(libc, add_rule, ruleset, path, _READ & handled_fs)
        if list_hidden:
            _allow(libc, add_rule, ruleset, "/", READ_DIR)
        for folder in writable:
            _allow(libc, add_rule, ruleset, folder, handled_fs)
        _allow(libc, add_rule, ruleset, os.devnull, (WRITE_FILE | READ_FILE | TRUNCATE) & handled_fs)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(restrict_self, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)


def _allow(libc, add_rule: int, ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone since it was listed, or unreadable: nothing to allow
    try:
        if not os.path.isdir(path):
            access &= _FILE_RIGHTS
        beneath = _PathBeneathAttr(access, fd)
        libc.syscall(add_rule, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(beneath),
                     ctypes.c_uint32(0))
    finally:
        os.close(fd)
