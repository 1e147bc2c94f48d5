"""check() for notebooks and nbgrader test cells.

The function object is not run here, and nothing is compared here: the sources
of the cells this kernel ran are sent to a judge process (gradtutor.learner.judge)
that grades them with the same check service as `gradtutor check`. So whatever the
notebook did to numpy, TensorFlow or gradtutor's modules in this kernel cannot
change the verdict. (Code in the kernel can still replace `check` itself; the
classroom grader therefore re-checks submitted files out of process.)
"""
from __future__ import annotations

import atexit
import inspect
import os
import subprocess
import sys
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.course import extract
from gradtutor.isolation import ipc
from gradtutor.learner.check_result import SKIPPED, CheckResult
from gradtutor.messages import say
from gradtutor.errors import CheckError, CheckFailed  # noqa: F401 - CheckFailed is API: check() raises its subclasses
from gradtutor.protocol import CheckReply, CheckRequest, NotebookVerdict, Status, VERDICT_MIME, failure_for

_judge: "JudgeClient | SharedJudgeClient | None" = None
_said_visible_only = False  # the "visible inputs only" note is shown once per kernel, not under every check


def check(lesson: str, exercise: str, function, *, seeds: str = "all") -> CheckResult:
    """Grade `function` as the answer to `exercise` of `lesson`, show the verdict and return it (falsy unless it passed).

    A learner's Run All goes on past an unfinished exercise: the verdict is shown, and nothing is raised.
    Under nbgrader's execution (autograde, validate: nbgrader sets NBGRADER_EXECUTION around the kernels it
    runs) a verdict other than pass raises the CheckFailed subclass that names its status (ExerciseFailed,
    ExerciseNotAttempted, ExerciseErrored, ExerciseTimedOut), so the gradebook scores the cell 0.
    """
    __tracebackhide__ = True  # IPython hides this frame: the learner sees the diagnosis
    try:
        the_lesson = course.load().lesson(lesson)
        the_exercise = the_lesson.exercise(exercise)
    except course.UnknownLesson as exc:
        raise CheckError(str(exc)) from None
    if seeds not in ("visible", "hidden", "all"):
        raise CheckError(say("check.bad_seeds", seeds=repr(seeds)))
    # a decorated function (@tf.function, functools.wraps) is still the learner's: the checker reads the cells by name
    plain = function
    while callable(plain) and not hasattr(plain, "__code__") and \
            (inner := getattr(plain, "python_function", None) or getattr(plain, "__wrapped__", None)) is not None:
        plain = inner
    if not callable(function) or not hasattr(plain, "__code__"):
        raise CheckError(say("check.not_your_function", lesson=repr(lesson), exercise=repr(exercise),
                             function=the_exercise.function, kind=type(function).__name__))
    function = plain
    sources = _sources_for(function)
    answer = _get_judge().ask({"lesson": the_lesson.id, "exercise": the_exercise.id, "seeds": seeds,
                               "function": getattr(function, "__name__", the_exercise.function), "cells": sources,
                               "notebook": _notebook_path(the_lesson)})
    if "problem" in answer:
        raise CheckError(say("check.problem", lesson=repr(lesson), exercise=repr(exercise), problem=answer["problem"]))
    if "skipped" in answer:  # hidden inputs outside a course: one line, and the notebook runs on
        print(answer["skipped"])
        return CheckResult(the_lesson.id, the_exercise.id, SKIPPED, answer["skipped"])
    _show(the_lesson.id, answer)
    status = Status(answer["status"])
    if status is not Status.PASS and grading():
        raise failure_for(status)(answer["message"])  # its class name tells nbgrader's gradebook the status
    return CheckResult(the_lesson.id, answer["id"], status.value, answer["message"], answer.get("cause"))


def grading() -> bool:
    """True while nbgrader runs this kernel to grade or validate it (it sets NBGRADER_EXECUTION around both)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def _notebook_path(lesson) -> str | None:
    from gradtutor.learner.workspace import notebook_for  # the judge records progress for this notebook

    path = notebook_for(lesson)
    return str(path) if path else None


def _sources_for(function) -> list[str]:
    """Every cell the kernel ran, in order; outside IPython, the function's source file."""
    history = _ipython_history()
    if history:
        return history
    path = inspect.getsourcefile(function)
    if path and Path(path).is_file():
        return [cell.source for cell in extract.read_cells(Path(path))]
    raise CheckError(say("check.no_source", function=function.__name__))


def _ipython_history() -> list[str] | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None:
        return None
    history = shell.user_ns.get("In") or shell.user_ns.get("_ih")
    return [str(source) for source in list(history)[1:]] if history else None


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
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
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


def prestart() -> None:
    """Start the judge (and its worker's TensorFlow import) without waiting for it."""
    _get_judge()


def _get_judge() -> "JudgeClient | SharedJudgeClient":
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
            _judge = JudgeClient()
    return _judge


def verdict_data(lesson_id: str, answer: CheckReply) -> NotebookVerdict:
    return {"lesson": lesson_id, "exercise": answer["id"], "status": answer["status"],
            "cause": answer.get("cause"), "message": answer["message"]}


def _show(lesson_id: str, answer: dict) -> None:
    global _said_visible_only
    note = None
    if answer.get("visible_only") and not _said_visible_only:
        from gradtutor.checking.diagnose import visible_only

        note, _said_visible_only = visible_only(), True
    note = answer.get("note") or note  # graded on the public hidden inputs: said under every such check
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display

        if get_ipython() is not None:
            from gradtutor.learner.verdict_view import verdict_html

            markup = verdict_html(lesson_id, answer["id"], answer["status"], answer["message"], answer["rows"])
            if answer["status"] != "pass":
                from gradtutor.learner.hints import stuck_note

                markup += stuck_note(lesson_id, answer["id"])[1]
            if note:
                from html import escape

                markup += f'<p class="gradtutor-note" style="opacity:0.75">{escape(note)}</p>'
            # HTML for people; beside it the verdict as data, kept in the cell's output for the class report
            display({"text/html": HTML(markup).data, VERDICT_MIME: verdict_data(lesson_id, answer)}, raw=True)
            return
    except ImportError:
        pass
    if answer["status"] == "pass":
        from gradtutor.learner.verdict_view import verdict_head

        print(verdict_head(lesson_id, answer["id"], answer["status"]))
        print(answer["message"])
    if note:
        print(f"  ({note})")
