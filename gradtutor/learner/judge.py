"""The notebook's judge: a clean process that owns the checker, so the kernel never compares.

A notebook kernel has run the learner's cells: numpy, TensorFlow or gradtutor
itself may have been patched there. So `check()` in a notebook only sends the
kernel's cell sources here (`python -m gradtutor.learner.judge`, started once per
kernel) and shows the answer. This process imports no learner code and no
TensorFlow; its worker runs the code, and the comparing happens here.

Protocol: one JSON request per line on stdin,
  {"lesson", "exercise", "function", "cells": [source, ...], "seeds", "notebook"}
and one JSON reply per line on stdout,
  {"id", "status", "message", "cause", "rows", "visible_only"} or {"problem": "..."}
  (gradtutor.protocol's JudgeRequest, JudgeReply).
After replying, this judge records the verdict as the notebook's progress when the
notebook is in a learner workspace (gradtutor.learner.learner_state.record_judged).

Hidden inputs: this judge has a course's only when its kernel runs inside that course's
folder (a plain `nbgrader autograde`, which runs kernels there unsandboxed: the kernel could
read the course's files anyway). A learner's own notebook has none: its checks run the
visible inputs and say so, and a hidden-test cell prints one line instead of failing, so a
solution notebook runs top to bottom anywhere. Under nbgrader (which sets NBGRADER_EXECUTION
in autograde and validate) in a folder whose config holds no secret, a plain nbgrader course
the lessons were copied into, the hidden-test cells run on the package's public hidden inputs
and say so: a correct answer is never a silent 0, and the instructor is told how to make the
hidden inputs secret. `gradtutor grade` answers its kernels from a judge of its own
(gradtutor.classroom.grading.shared_judge) that holds the course's secret; its sandboxed kernels
cannot read the course's config, so a judge they start has no hidden inputs.
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from gradtutor.course import manifest as course
from gradtutor.course import secret as course_secret
from gradtutor.course import extract
from gradtutor.learner import learner_state
from gradtutor.learner import verdict_view as report
from gradtutor.checking.checker import Checker
from gradtutor.errors import GradtutorError, NoHiddenInputs
from gradtutor.isolation import ipc, landlock
from gradtutor.messages import say
from gradtutor.protocol import JudgeReply, Status
from gradtutor.course.seeds import HiddenInputs


def main() -> None:
    landlock.die_with_parent()
    replies = sys.stdout.fileno()
    sys.stdout = sys.stderr  # nothing but replies on the reply stream
    try:
        found = course_secret.find_secret(Path.cwd())  # the kernel's folder: a course's, under nbgrader
        problem = None
    except GradtutorError as exc:  # a course whose secret is malformed: every check says so
        found, problem = None, str(exc)
    hidden = hidden_inputs(found, os.environ)
    # prepare_next: the next check of a lesson finds a child with its inputs built
    with Checker(prepare_next=True, hidden=hidden, hide=[str(found[1])] if found else None) as checker:
        def reply_to(line):
            return {"problem": problem} if problem else answer(checker, line)

        # recorded here, not in the kernel: a learner workspace's progress, on every seed as `gradtutor check`
        # has it (no second check where there are no hidden inputs: the visible ones are all there is)
        again = reply_to if checker.hidden.available else None
        serve(ipc.MessageReader(sys.stdin), replies, reply_to,
              after=lambda line, reply: learner_state.record_judged(line, reply, again))


def hidden_inputs(found: tuple[str, Path] | None, environ) -> HiddenInputs | None:
    """A course's hidden inputs; under nbgrader with no secret, the public ones; else none (None)."""
    if found:
        return HiddenInputs(secret=found[0])
    if environ.get("NBGRADER_EXECUTION"):  # autograde or validate of a course with no secret
        return HiddenInputs(public=True)
    return None


def serve(requests: ipc.MessageReader, replies, reply_to, after=None) -> None:
    """One reply per non-blank request line, until the asking side hangs up (end of stream).

    after(line, reply), if given, runs once each reply is sent (the kernel is not kept waiting for it).
    """
    while (line := requests.read_line()) is not None:
        if line.strip():
            reply = reply_to(line)
            ipc.send(replies, reply)
            if after is not None:
                after(line, reply)


def answer(checker: Checker, line: str | bytes) -> JudgeReply:
    """The reply to one request line (the protocol above); a malformed request gets {"problem": ...}."""
    try:
        request = json.loads(line)
        lesson = course.load().lesson(request["lesson"])
        exercise = lesson.exercise(request["exercise"])
        cells = extract.cells_from_sources([str(s) for s in request["cells"]], say("files.notebook_cell"))
        name = request.get("function") or exercise.function
        if name != exercise.function and extract.find_function(cells, name).cell is not None:
            exercise = dataclasses.replace(exercise, function=name)  # graded under the learner's own name
        seeds = request.get("seeds", "all")
        try:
            result = checker.check_cells(lesson, cells, [exercise], seeds, say("files.this_notebook"))
        except NoHiddenInputs:  # a hidden-test cell outside a course: said, not failed
            return {"skipped": say("check.hidden.at_grading", lesson=lesson.id, exercise=exercise.id)}
        one = result.exercises[0]
        reply: JudgeReply = {"id": one.id, "status": one.status.value, "message": one.message,
                             "cause": one.cause.value if one.cause else None,
                             "rows": report.comparison_rows(one.reports) if one.status is Status.FAIL else [],
                             "visible_only": result.visible_only}
        if checker.hidden.public and seeds != "visible":
            reply["note"] = say("check.hidden.public")
        return reply
    except (GradtutorError, KeyError, TypeError, ValueError) as exc:  # NoHiddenInputs among them
        return {"problem": str(exc)}


if __name__ == "__main__":
    main()
