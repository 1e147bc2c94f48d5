"""No network for a process and everything it starts: Landlock's TCP rules, and a network namespace of its own.

`gradtutor grade --scheduler` runs learners' notebooks on Dask workers, which share a
network with the scheduler and the other workers. The process that grades there
(gradtutor.classroom.cluster.dask_host) fences itself in before it starts anything, so no
kernel it runs can open a connection to the scheduler, a worker or anywhere else:

* Landlock (ABI 4 and later) refuses every TCP connect and bind: the call fails with
  PermissionError inside the learner's code. Landlock has no rules for UDP.
* A network namespace of its own (as root, or through an unprivileged user namespace)
  has no interface at all but a loopback that is down: every address is unreachable,
  UDP too, and the machine's own 127.0.0.1 is another namespace's.

Each layer is applied where the kernel allows it; `fence` says which held, so the
instructor is told when a worker has neither. Nothing the grading needs uses the
network: nbgrader talks to its kernels over Unix sockets, and Unix sockets bound to
a path work across network namespaces.
"""
from __future__ import annotations

import ctypes
import os

from gradtutor.isolation import landlock

_CLONE_NEWUSER, _CLONE_NEWNET = 0x10000000, 0x40000000


def fence(use_landlock: bool = True, use_namespace: bool = True) -> list[str]:
    """Apply every layer this kernel allows to this process (call it single-threaded); the ones that held."""
    held = []
    if use_landlock and deny_tcp():
        held.append(f"Landlock ABI {landlock.abi_version()} (no TCP)")
    if use_namespace and new_network_namespace():
        held.append("a network namespace of its own (no interfaces)")
    return held


def deny_tcp() -> bool:
    """A Landlock ruleset that handles TCP connect and bind and allows neither. False below ABI 4."""
    version = landlock.abi_version()
    if version < 4:
        return False
    create, _, restrict_self = landlock._SYS[os.uname().machine]
    libc = ctypes.CDLL(None, use_errno=True)
    attr = landlock._RulesetAttr(0, landlock._NET_BIND_TCP | landlock._NET_CONNECT_TCP, 0)
    ruleset = libc.syscall(create, ctypes.byref(attr), ctypes.c_size_t(16), ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        if libc.prctl(landlock._PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(restrict_self, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)


def new_network_namespace() -> bool:
    """Move this process into a network namespace of its own. False where the kernel or our rights forbid it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNET) == 0:  # root (CAP_SYS_ADMIN)
        return True
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET) != 0:  # needs a single-threaded caller
        return False
    try:  # keep our own ids inside the user namespace, so files keep their owner
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    except OSError:
        pass  # unmapped ids read as nobody; the namespace holds all the same
    return True
