"""The notebook's judge: a clean process that owns the checker, so the kernel never compares.

A notebook kernel has run the learner's cells: numpy, TensorFlow or gradtutor
itself may have been patched there. So `check()` in a notebook only sends the
kernel's cell sources here (`python -m gradtutor.judge`, started once per
kernel) and shows the answer. This process imports no learner code and no
TensorFlow; its worker runs the code, and the comparing happens here.

Protocol: one JSON request per line on stdin,
  {"lesson", "exercise", "function", "cells": [source, ...], "seeds", "notebook"}
and one JSON reply per line on stdout,
  {"id", "status", "message", "cause", "rows"} or {"problem": "..."} (gradtutor.protocol's JudgeRequest, JudgeReply).
After replying, this judge records the verdict as the notebook's progress when the
notebook is in a learner workspace (gradtutor.learner_state.record_judged).
"""
from __future__ import annotations

import dataclasses
import json
import sys

from gradtutor import course, extract, learner_state, report
from gradtutor.checker import Checker
from gradtutor.isolation import ipc, landlock
from gradtutor.protocol import JudgeReply, Status


def main() -> None:
    landlock.die_with_parent()
    replies = sys.stdout.fileno()
    sys.stdout = sys.stderr  # nothing but replies on the reply stream
    # prepare_next: the next check of a lesson finds a child with its inputs built
    with Checker(prepare_next=True) as checker:
        def reply_to(line):
            return answer(checker, line)

        # recorded here, not in the kernel: a learner workspace's progress, on every seed as `gradtutor check` has it
        serve(ipc.MessageReader(sys.stdin), replies, reply_to,
              after=lambda line, reply: learner_state.record_judged(line, reply, reply_to))


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
        cells = extract.cells_from_sources([str(s) for s in request["cells"]], "notebook cell")
        name = request.get("function") or exercise.function
        if name != exercise.function and extract.find_function(cells, name).cell is not None:
            exercise = dataclasses.replace(exercise, function=name)  # graded under the learner's own name
        result = checker.check_cells(lesson, cells, [exercise], request.get("seeds", "all"), "this notebook")
        one = result.exercises[0]
        return {"id": one.id, "status": one.status.value, "message": one.message,
                "cause": one.cause.value if one.cause else None,
                "rows": report.comparison_rows(one.reports) if one.status is Status.FAIL else []}
    except (course.UnknownLesson, KeyError, TypeError, ValueError) as exc:
        return {"problem": str(exc)}


if __name__ == "__main__":
    main()
