"""The fork server: imports TensorFlow once, then forks one child per job.

Started by gradtutor.isolation.client as `python -m gradtutor.isolation.server`.
It reads one Job per line on stdin, forks, and reports WorkerMessages on
stdout: `{"ready"}` once, then per job `{"id", "pid"}` and `{"id", "exit"}`.
The server itself never runs a TensorFlow op, so forking it is safe (TF's
thread pools start at the first op) and each job starts in ~0.1 s instead of
paying the ~3 s import again. What a child does is gradtutor.isolation.child.
"""
from __future__ import annotations

import gc
import os

from gradtutor.isolation import ipc, landlock
from gradtutor.protocol import Job, WorkerMessage


def main() -> None:
    # First, before any import that takes seconds: a server whose starter is already gone ends here.
    landlock.die_with_parent()
    _silence_stderr()
    import gradtutor.quiet  # noqa: F401  (must precede the TensorFlow import)
    import tensorflow as tf  # noqa: F401  (the whole point: import once, before forking)
    from gradtutor.isolation import child
    import keras  # noqa: F401

    _read_numpy_names()
    # Everything imported so far lives as long as the server: out of the collector's sight, a
    # child's gc.collect() (child._forget_references runs one before learner code) scans only what
    # the child made, instead of every TensorFlow object — and copies none of the server's pages.
    gc.freeze()
    protocol = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # nothing else may write to the protocol pipe
    ipc.send(protocol, WorkerMessage(ready=True))
    jobs = ipc.MessageReader(0)
    me = os.getpid()  # read before each fork: a child compares it with its parent once its death signal is set
    while not jobs.eof:
        job: Job | None = jobs.read_message()
        if job is None:
            continue  # a blank line, or the end of the stream
        pid = os.fork()
        if pid == 0:
            os.close(protocol)
            child.run(job, me)  # never returns
        ipc.send(protocol, WorkerMessage(id=job["id"], pid=pid))
        ipc.send(protocol, WorkerMessage(id=job["id"], exit=_exit_status(pid)))


def _read_numpy_names() -> None:
    """Read every public name of numpy once, here, so every child finds them loaded.

    numpy imports some of them (f2py, testing, ma, …) only when first read, and the recorder
    (gradtutor.evidence.recording.instrument) reads them all as it looks for numpy's ufuncs:
    in each child that cost ~0.1 s of every check, before the learner's first gradient.
    """
    import numpy

    for name in dir(numpy):
        if not name.startswith("_"):
            getattr(numpy, name, None)


def _exit_status(pid: int) -> dict:
    """How the child ended: {"code": n}, or {"signal": n} when it was killed."""
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"code": os.WEXITSTATUS(status)}


def _silence_stderr() -> None:
    """TF's C++ start-up lines go to fd 2; send them to a log instead of the learner."""
    log = os.environ.get("GRADTUTOR_WORKER_LOG", os.devnull)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 2)


if __name__ == "__main__":
    main()
