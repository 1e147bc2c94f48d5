"""The one check service: a CheckRequest in, a CheckReply out (gradtutor.payloads), from a warm Checker.

Three hosts carry it, each only a transport around `CheckService.answer`:
  - the warm daemon behind `gradtutor check` (gradtutor.learner.daemon: a Unix socket, a request per connection);
  - a notebook kernel's judge (gradtutor.learner.judge: JSON lines on its stdin and stdout);
  - the classroom's shared judge (gradtutor.classroom.grading.shared_judge: a Unix socket that every kernel
    of a grading process reaches through GRADTUTOR_JUDGE).
So a verdict is reached and worded by the same code whoever asks. It lives beside the checker, not in a
front end, so the classroom serves it without importing the learner's modules. What only one front end
does with a verdict (record a notebook's progress in the learner's workspace, draw the terminal's table)
its host does after the reply, from the Answer; so does `Answer.settle`, which prepares the next check's
child: the asker waits for neither.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Callable

from gradtutor.checking.checker import Checker
from gradtutor.checking.verdict import LessonResult, comparison_rows
from gradtutor.course import extract
from gradtutor.course import manifest as course
from gradtutor.errors import GradtutorError, NoHiddenInputs
from gradtutor.isolation import ipc
from gradtutor.messages import say
from gradtutor.payloads import CheckReply, CheckRequest
from gradtutor.protocol import Status


@dataclasses.dataclass
class Answer:
    """A reply, with what its host may still do once it is sent."""

    reply: CheckReply
    request: CheckRequest | None = None  # None: the line was no request
    result: LessonResult | None = None  # the verdicts themselves (the terminal's host draws them)
    checker: Checker | None = None
    lesson: course.Lesson | None = None

    def settle(self) -> None:
        """After the reply is out: leave the next check's child prepared (when the checker keeps one)."""
        if self.checker is not None and self.lesson is not None:
            self.checker.prepare(self.lesson)


class CheckService:
    """Requests to replies, each checked by the Checker `checker_for(request)` gives (a host may keep several)."""

    def __init__(self, checker_for: Callable[[CheckRequest], Checker], problem: str | None = None):
        self.checker_for = checker_for
        self.problem = problem  # the reply to every request (a course whose secret is malformed)

    def answer(self, request: CheckRequest) -> Answer:
        """A GradtutorError is a {problem} reply; a malformed request raises KeyError, TypeError or ValueError."""
        if self.problem:
            return Answer({"problem": self.problem}, request)
        try:
            return self._check(request)
        except GradtutorError as exc:
            return Answer({"problem": str(exc), "exit_code": exc.exit_code}, request)

    def answer_line(self, line: str | bytes) -> Answer:
        """The answer to one JSON request line; a malformed one gets {problem} too (the judges' protocol)."""
        if self.problem:
            return Answer({"problem": self.problem})
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise TypeError(f"a request is a JSON object, not {type(request).__name__}")
            return self.answer(request)
        except (KeyError, TypeError, ValueError) as exc:
            return Answer({"problem": str(exc)})

    def _check(self, request: CheckRequest) -> Answer:
        lesson = course.load().lesson(request["lesson"])
        exercise = lesson.exercise(request["exercise"]) if request.get("exercise") else None
        from_kernel = "cells" in request  # the sources a kernel ran; else the file the terminal names
        if from_kernel:
            cells = extract.cells_from_sources([str(s) for s in request["cells"]], say("files.notebook_cell"))
        else:
            cells = extract.read_cells(Path(request["path"]))
        name = request.get("function")
        if exercise is not None and name and name != exercise.function \
                and extract.find_function(cells, name).cell is not None:
            exercise = dataclasses.replace(exercise, function=name)  # graded under the learner's own name
        checker = self.checker_for(request)
        seeds = request.get("seeds", "all")
        source = request.get("source") or say("files.this_notebook")
        try:
            result = checker.check_cells(lesson, cells, [exercise] if exercise else None, seeds, source,
                                         then_prepare=False)
        except NoHiddenInputs:
            if not from_kernel or exercise is None:
                raise
            # a hidden-test cell outside a course: said, not failed, so the notebook runs on
            return Answer({"skipped": say("check.hidden.at_grading", lesson=lesson.id, exercise=exercise.id)}, request)
        reply: CheckReply = {}
        if exercise is not None:
            one = result.exercises[0]
            reply.update(id=one.id, status=one.status.value, message=one.message,
                         cause=one.cause.value if one.cause else None,
                         rows=comparison_rows(one.reports) if one.status is Status.FAIL else [])
        reply.update(visible_only=result.visible_only, exit_code=result.exit_code,
                     statuses={e.id: e.status.value for e in result.exercises})
        if checker.hidden.public and seeds != "visible":
            reply["note"] = say("check.hidden.public")
        return Answer(reply, request, result, checker, lesson)


def serve_lines(requests: ipc.MessageReader, replies, answer: Callable[[bytes], Answer],
                after: Callable[[Answer], None] | None = None) -> None:
    """One reply per non-blank request line, until the asking side hangs up (end of stream).

    after(answer), if given, runs once each reply is sent (the asker is not kept waiting for it); then the
    answer settles.
    """
    while (line := requests.read_line()) is not None:
        if line.strip():
            found = answer(line)
            ipc.send(replies, found.reply)
            if after is not None:
                after(found)
            found.settle()
