"""The notebook's judge: a clean process that owns the checker, so the kernel never compares.

A notebook kernel has run the learner's cells: numpy, TensorFlow or gradtutor
itself may have been patched there. So `check()` in a notebook only sends the
kernel's cell sources here (`python -m gradtutor.learner.judge`, started once per
kernel) and shows the answer. This process imports no learner code and no
TensorFlow; its worker runs the code, and the comparing happens here.

It is a host of the one check service (gradtutor.checking.service): one JSON request per
line on stdin,
  {"lesson", "exercise", "function", "cells": [source, ...], "seeds", "notebook"}
and one JSON reply per line on stdout,
  {"id", "status", "message", "cause", "rows", "visible_only", ...}, {"skipped"} or {"problem"}
  (gradtutor.payloads' CheckRequest, CheckReply).
After replying, this judge records the verdict as the notebook's progress when the
notebook is in a learner workspace (gradtutor.learner.workspace.record_judged).

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

import os
import sys
from pathlib import Path

from gradtutor.checking.checker import Checker
from gradtutor.checking.service import CheckService, serve_lines
from gradtutor.course import secret as course_secret
from gradtutor.course.seeds import HiddenInputs
from gradtutor.errors import GradtutorError
from gradtutor.isolation import ipc, landlock
from gradtutor.learner import workspace


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
    with Checker(prepare_next=prepares_next(os.environ), hidden=hidden,
                 hide=[str(found[1])] if found else None) as checker:
        service = CheckService(lambda request: checker, problem)
        # recorded here, not in the kernel: a learner workspace's progress, on every seed as `gradtutor check`
        # has it (no second check where there are no hidden inputs: the visible ones are all there is)
        again = (lambda request: service.answer(request).reply) if checker.hidden.available else None

        def record(answer) -> None:
            if answer.request is not None:
                workspace.record_judged(answer.request, answer.reply, again)

        serve_lines(ipc.MessageReader(sys.stdin), replies, service.answer_line, after=record)


def prepares_next(environ) -> bool:
    """Whether the checker leaves a child waiting with the lesson's inputs built after each check.

    For a learner, yes: the next check, whenever it comes, costs only the learner's code. Under nbgrader
    (autograde, validate) no: that is a batch, whose kernel runs the next test cell at once, so the child
    built while it does competes with it for the CPU, and the one built after a notebook's last check, or
    while an untouched release answers every check "not attempted" without running anything, is never used
    (a plain `nbgrader autograde` of a lesson took a quarter longer with it). Verdicts are the same either way.
    """
    return not environ.get("NBGRADER_EXECUTION")


def hidden_inputs(found: tuple[str, Path] | None, environ) -> HiddenInputs | None:
    """A course's hidden inputs; under nbgrader with no secret, the public ones; else none (None)."""
    if found:
        return HiddenInputs(secret=found[0])
    if environ.get("NBGRADER_EXECUTION"):  # autograde or validate of a course with no secret
        return HiddenInputs(public=True)
    return None


if __name__ == "__main__":
    main()
