"""Kernels forked from a process that has already imported TensorFlow.

Importing TensorFlow is most of what a fresh kernel costs (see `import
tensorflow` in ../shared/PITFALLS.md: ~3.5 s, every submission). A grading
worker therefore starts one *kernel forker*: a process that imports
TensorFlow, Keras, numpy, IPython and ipykernel — and runs no TensorFlow op,
since forking after TF has started its thread pools risks deadlocks — and then
forks one child per kernel nbgrader asks for. The child is an ordinary
ipykernel (`python -m ipykernel_launcher -f CONNECTION_FILE`, run in-process):
same interpreter, same command-line arguments, the environment and working
folder nbgrader gave it, fenced in by the same Landlock rules as a cold kernel
(gradtutor.classroom.kernels.kernel_sandbox). A notebook's `import tensorflow` then
finds the module loaded; everything else it runs, it runs as before.

The forked kernel is not a child of nbgrader's process; `ForkedKernel` stands
in for its `subprocess.Popen` (pid, poll, wait, signals) through a pidfd, so
jupyter_client manages it as it manages any kernel it started. The child starts
a session of its own, so a signal to its process group reaches what it started.

Only the grading worker that started the forker may ask it for a kernel (the
peer's pid, from SO_PEERCRED): a kernel could reach the socket, and must not be
able to get an unfenced kernel of its own.

Protocol: one JSON line to the forker's Unix socket, {"argv", "env", "cwd",
"spec"}; one JSON line back, {"pid"} or {"error"}.
"""
from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time

from gradtutor import defaults
from gradtutor.isolation.landlock import die_with_parent, started_by

# the imports a lesson's first cell makes; nothing here runs a TensorFlow op. (numpy's OpenBLAS
# starts a thread when imported; it rebuilds its pool in a forked child, through pthread_atfork.)
WARM_IMPORTS = ("numpy", "tensorflow", "keras", "IPython", "ipykernel.kernelapp", "ipykernel.ipkernel",
                "gradtutor.learner.notebook", "gradtutor.learner.verdict_view")
LAUNCHER = "ipykernel_launcher"


class ForkFailed(Exception):
    """The forker did not make the kernel (gone, not ready in time, or it said why)."""


def can_fork(kernel_cmd: list[str]) -> bool:
    """Only the command a forked child runs exactly: this Python, `-m ipykernel_launcher`."""
    return (len(kernel_cmd) >= 3 and kernel_cmd[1:3] == ["-m", LAUNCHER]
            and os.path.realpath(kernel_cmd[0]) == os.path.realpath(sys.executable))


# --------------------------------------------------------------------------- the worker's side


def start_forker(path: str, log: str) -> subprocess.Popen:
    """Start the forker listening at `path`; it binds at once and answers once its imports are done."""
    # Keras settles its folder when imported: the forker's own, never the grader's ~/.keras
    env = dict(started_by(os.environ), KERAS_HOME=os.path.join(os.path.dirname(path), "keras"))
    with open(log, "ab") as out:
        process = subprocess.Popen([sys.executable, "-c", f"from {__name__} import serve; serve()", path],
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=out, env=env)
    # Wait for the bind (a Python start-up, well before the imports): a request sent earlier would find no
    # socket and start its kernel cold. A forker that never binds is left to that same cold-start fallback.
    deadline = time.monotonic() + defaults.KERNEL_FORKER_BIND_TIMEOUT
    while not os.path.exists(path) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return process


def launch(path: str, argv: list[str], env: dict, cwd: str, spec: dict, timeout: float) -> "ForkedKernel":
    """Ask the forker at `path` for a kernel; ForkFailed if it cannot give one within `timeout` seconds."""
    request = json.dumps({"argv": argv, "env": env, "cwd": cwd, "spec": spec}).encode() + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as line:
            line.settimeout(timeout)  # the forker's first answer waits for its imports
            line.connect(path)
            line.sendall(request)
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = line.recv(4096)
                if not chunk:
                    break
                reply += chunk
    except OSError as exc:
        raise ForkFailed(f"no answer from the kernel forker ({exc})") from None
    try:
        message = json.loads(reply)
        pid = int(message["pid"])
    except (ValueError, KeyError, TypeError):
        raise ForkFailed(f"the kernel forker said: {reply[:300]!r}") from None
    return ForkedKernel(pid)


class ForkedKernel:
    """What jupyter_client's LocalProvisioner needs of a Popen, for a kernel the forker made."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None
        try:
            self._pidfd = os.pidfd_open(pid)  # a pid can be reused once the process is gone; a pidfd cannot
        except ProcessLookupError:  # died already
            self._pidfd, self.returncode = None, -1

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._pidfd], [], [], 0)[0]:
            self._finished()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired([f"kernel {self.pid}"], timeout)
            select.select([self._pidfd], [], [], left)
        return self.returncode

    def _finished(self) -> None:
        # not our child: its exit status went to the forker, which reaps it; only "gone" is known here
        self.returncode = -1
        os.close(self._pidfd)
        self._pidfd = None

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            signal.pidfd_send_signal(self._pidfd, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


# --------------------------------------------------------------------------- the forker


def serve() -> None:
    """The forker: bind, import, then fork a kernel per request (python -c ... serve() PATH)."""
    import importlib

    path = sys.argv[1]
    die_with_parent()  # the forker ends with its grading worker
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)  # before the imports: a request waits in the backlog instead of failing
    server.listen(16)
    import gradtutor.quiet  # noqa: F401 - sets TF's quiet variables and imports TF with stderr silenced

    for name in WARM_IMPORTS:
        importlib.import_module(name)
    _warm_caches()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernels are reaped as they exit
    # The imports live as long as every kernel: the kernels' collections skip them (and copy none of their pages).
    gc.freeze()
    print(f"kernel forker ready: {path}", flush=True)
    worker = os.getppid()
    while True:
        connection, _ = server.accept()
        with connection:
            # The request is read before any answer, the refusal's too: answering and closing first would
            # let the asker's own send meet a closed line (EPIPE) and never read the answer. A peer that
            # sends nothing holds the line for at most the read timeout.
            connection.settimeout(defaults.KERNEL_FORKER_READ_TIMEOUT)
            try:
                line = _read_line(connection)
            except OSError:
                continue
            if _peer_pid(connection) != worker:  # a kernel asking for an unfenced kernel of its own: no
                _reply(connection, {"error": "only the grading worker may ask for kernels"})
                continue
            try:
                request = json.loads(line)
                pid = os.fork()
            except (OSError, ValueError) as exc:
                _reply(connection, {"error": f"{exc.__class__.__name__}: {exc}"})
                continue
            if pid == 0:
                server.close()
                connection.close()
                _become_kernel(request)  # never returns
            _reply(connection, {"pid": pid})


def _warm_caches() -> None:
    """Fill, once, the caches every kernel would otherwise fill on its own; no TensorFlow op runs.

    A kernel formats a traceback for each demonstration cell that raises and each check that
    does not pass. The first one in a process costs ~0.2 s of CPU: IPython's formatter asks
    `inspect.getmodule`, which reads the path of every loaded module (thousands, with
    TensorFlow), and compiles Pygments' Python lexer. One traceback formatted here, as a
    kernel's shell formats it, leaves those caches filled in every forked kernel; what a
    kernel shows is the same. The course manifest, which each check() reads, is parsed
    and validated once here too.
    """
    from IPython.core import ultratb
    from IPython.core.interactiveshell import InteractiveShell

    from gradtutor.course import manifest as course

    traits = InteractiveShell.class_traits()
    formatter = ultratb.AutoFormattedTB(mode=traits["xmode"].default(), theme_name=traits["colors"].default())
    try:
        raise RuntimeError("the kernel forker's warm-up traceback")
    except RuntimeError as exc:
        formatter.structured_traceback(type(exc), exc, exc.__traceback__)
    course.load()


def _peer_pid(connection) -> int:
    import struct

    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)[0]


def _read_line(connection) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = connection.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    return data


def _reply(connection, message: dict) -> None:
    try:
        connection.sendall(json.dumps(message).encode() + b"\n")
    except OSError:
        pass


def _become_kernel(request: dict) -> None:
    """In the forked child: what `python -m ipykernel_launcher ...` in the sandbox would be, minus the imports."""
    code = 1
    try:
        os.setsid()  # its own process group: jupyter_client signals the group
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the notebook's subprocesses are its to wait for
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)  # jupyter_client gives a kernel no stdin either
        os.close(null)
        cwd = request["cwd"]
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(request["env"])
        _fresh_module_state(cwd)
        from gradtutor.isolation import landlock

        landlock.restrict(request["spec"]["writable"], request["spec"]["hidden"], list_hidden=True)
        import ipykernel_launcher  # noqa: F401 - only its path, for argv[0] (importing it starts nothing)
        from ipykernel.kernelapp import IPKernelApp

        sys.argv = [ipykernel_launcher.__file__, *request["argv"][3:]]
        # two settings whose defaults ipykernel reads from the environment when imported (in the forker)
        IPKernelApp.launch_instance(parent_handle=int(os.environ.get("JPY_PARENT_PID") or 0),
                                    interrupt=int(os.environ.get("JPY_INTERRUPT_EVENT") or 0))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - reported in the worker's log; the kernel is then dead to nbgrader
        import traceback

        traceback.print_exc()
    finally:
        os._exit(code)


def _fresh_module_state(cwd: str) -> None:
    """Undo what the forker's own start left in modules a kernel would have fresh."""
    import importlib
    import tempfile

    import gradtutor.quiet

    importlib.reload(gradtutor.quiet)  # its defaults into this environment (TF stays loaded)
    tempfile.tempdir = None  # TMPDIR is the kernel's scratch folder now
    if sys.path and sys.path[0] == "":
        sys.path[0] = cwd  # `python -m` puts the working folder first

