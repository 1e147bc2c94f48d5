"""The kernel's lines to a checker in another process: where check() sends a notebook's cells.

In a learner's kernel, the learner's one warm daemon (gradtutor.learner.daemon), which `gradtutor check`
and every other open lesson share, so a second open lesson costs its kernel and no checker; under
nbgrader's execution, in a course folder, or with the daemon off (GRADTUTOR_NO_DAEMON) or out of reach,
a judge process (gradtutor.learner.judge): `gradtutor grade`'s shared one (GRADTUTOR_JUDGE), else one of
this kernel's own.
"""
from __future__ import annotations

import atexit
import os
import subprocess
import sys
from pathlib import Path

from gradtutor.isolation import ipc, landlock
from gradtutor.messages import say
from gradtutor.errors import CheckError
from gradtutor.payloads import CheckReply, CheckRequest

_judge: "JudgeClient | SharedJudgeClient | WarmCheckerLine | None" = None


def grading() -> bool:
    """True while nbgrader runs this kernel to grade or validate it (it sets NBGRADER_EXECUTION around both)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


class _JudgeLine:
    """A request out, the reply back; a judge that hangs up (or answers nonsense) is a CheckError."""

    _requests = None  # where requests are written (a pipe or a socket)
    _replies: "ipc.MessageReader | None" = None

    def ask(self, request: CheckRequest) -> CheckReply:
        __tracebackhide__ = True
        try:
            ipc.send(self._requests, request)
            reply = self._replies.read_message()  # no deadline: the judge's checker enforces the time limits
        except (OSError, ValueError, AttributeError):
            reply = None
        if reply is None:
            self.close()
            raise CheckError(say("check.judge_stopped"))
        return reply

    def close(self) -> None:
        raise NotImplementedError


class JudgeClient(_JudgeLine):
    """The kernel's line to its judge process (started once, stopped with the kernel)."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-m", "gradtutor.learner.judge"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env=landlock.started_by(os.environ))
        self._requests = self.process.stdin
        self._replies = ipc.MessageReader(self.process.stdout)
        atexit.register(self.close)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()


class SharedJudgeClient(_JudgeLine):
    """The line to a judge that serves every kernel of a `gradtutor grade` worker, one after another.

    `gradtutor grade` runs nbgrader's kernels with GRADTUTOR_JUDGE set to a Unix socket
    where a judge with a warm checker answers the same requests, so a kernel does not
    start (and a checker does not re-import TensorFlow and recompute the references)
    once per submission. The verdicts are the same; if the socket does not answer, the
    kernel starts its own judge.
    """

    def __init__(self, path: str):
        import socket

        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.socket.connect(path)
        except OSError:
            self.socket.close()
            raise
        self._requests = self.socket
        self._replies = ipc.MessageReader(self.socket)
        atexit.register(self.close)

    @property
    def alive(self) -> bool:
        return self._replies is not None

    def close(self) -> None:
        replies, self._replies = self._replies, None
        try:
            if replies is not None:
                replies.close()
            self.socket.close()
        except OSError:
            pass


class WarmCheckerLine:
    """A learner kernel's line to the learner's warm daemon: a connection per check; out of reach, a judge of its own."""

    alive = True

    def __init__(self):
        self.fallback: JudgeClient | None = None

    def ask(self, request: CheckRequest) -> CheckReply:
        __tracebackhide__ = True
        from gradtutor.defaults import EXERCISE_TIMEOUT, MEMORY_MB
        from gradtutor.learner.daemon import client

        if self.fallback is None:
            reply = client.exchange(dict(request, timeout=EXERCISE_TIMEOUT, memory_mb=MEMORY_MB))
            if reply is not None:
                return reply
            self.fallback = JudgeClient()  # the daemon cannot be reached or crashed: checked here, as before it
        return self.fallback.ask(request)

    def close(self) -> None:
        if self.fallback is not None:
            self.fallback.close()


def _learner_kernel() -> bool:
    """A learner's kernel: not nbgrader's, not in a course folder (whose judge reads its hidden inputs), daemon on."""
    from gradtutor.course.secret import find_secret
    from gradtutor.errors import GradtutorError
    from gradtutor.learner import daemon

    if grading() or os.environ.get("GRADTUTOR_JUDGE") or daemon.disabled():
        return False
    try:
        return find_secret(Path.cwd()) is None
    except (GradtutorError, OSError):
        return False  # a course whose secret cannot be read: its judge says so at every check


def get_judge() -> "JudgeClient | SharedJudgeClient | WarmCheckerLine":
    global _judge
    if _judge is None or not _judge.alive:
        shared = os.environ.get("GRADTUTOR_JUDGE")
        _judge = None
        if shared:
            try:
                _judge = SharedJudgeClient(shared)
            except OSError:
                _judge = None  # not there (any more): a judge of this kernel's own
        if _judge is None:
            _judge = WarmCheckerLine() if _learner_kernel() else JudgeClient()
    return _judge
