"""The one check service (gradtutor.checking.service): a request to a reply, the same for every host.

A stand-in checker returns made-up verdicts, so what is pinned here is the service's own part: which
exercise and cells a request names, how a verdict, a problem or a skipped hidden check is replied, and
that the next child is prepared only once the host has sent the reply (Answer.settle).
"""
from __future__ import annotations

import json
import os

import pytest

from gradtutor.checking.service import CheckService, serve_lines
from gradtutor.checking.verdict import ExerciseResult, LessonResult
from gradtutor.course import manifest as course
from gradtutor.course.seeds import HiddenInputs
from gradtutor.errors import NoHiddenInputs
from gradtutor.isolation import ipc
from gradtutor.messages import say
from gradtutor.protocol import Cause, Status

pytestmark = pytest.mark.unit

LESSON = course.load().lesson("lesson1")
EXERCISE = LESSON.exercise("watch_constant")
CODE = "def grad_of_cube(x):\n    return x\n\ndef my_own_name(x):\n    return x\n"


class StandIn:
    """What the service asks of a Checker; records each check and each prepare."""

    def __init__(self, status=Status.PASS, raises=None, hidden=None):
        self.status, self.raises = status, raises
        self.hidden = hidden or HiddenInputs.default()
        self.checked, self.prepared = [], []

    def check_cells(self, lesson, cells, exercises, seeds, source, then_prepare=True):
        self.checked.append({"exercises": [(e.id, e.function) for e in exercises or lesson.exercises],
                             "cells": [c.source for c in cells], "seeds": seeds, "source": source,
                             "then_prepare": then_prepare})
        if self.raises:
            raise self.raises
        chosen = exercises or lesson.exercises
        results = [ExerciseResult(e.id, e.function, self.status, f"{e.function}: {self.status.value}", 0, 1,
                                  cause=None if self.status is Status.PASS else Cause.UNKNOWN) for e in chosen]
        return LessonResult(lesson, source, results, visible_only=not self.hidden.available)

    def prepare(self, lesson, seeds="all"):
        self.prepared.append(lesson.id)


def _kernel_request(**extra) -> dict:
    return {"lesson": LESSON.id, "exercise": EXERCISE.id, "function": EXERCISE.function, "cells": [CODE], **extra}


def test_is_a_kernels_check_one_flat_verdict_prepared_after_the_reply():
    checker = StandIn(Status.FAIL)
    answer = CheckService(lambda request: checker).answer(_kernel_request(seeds="visible"))
    assert answer.reply == {"id": EXERCISE.id, "status": "fail", "message": f"{EXERCISE.function}: fail",
                            "cause": Cause.UNKNOWN.value, "rows": [], "visible_only": True, "exit_code": 1,
                            "statuses": {EXERCISE.id: "fail"}}
    assert checker.checked == [{"exercises": [(EXERCISE.id, EXERCISE.function)], "cells": [CODE], "seeds": "visible",
                                "source": say("files.this_notebook"), "then_prepare": False}]
    assert checker.prepared == []
    answer.settle()
    assert checker.prepared == [LESSON.id]


def test_is_an_answer_graded_under_the_learners_own_name_only_when_they_defined_it():
    checker = StandIn()
    service = CheckService(lambda request: checker)
    service.answer(_kernel_request(function="my_own_name"))
    service.answer(_kernel_request(function="never_defined"))
    assert [c["exercises"] for c in checker.checked] == [[(EXERCISE.id, "my_own_name")],
                                                       [(EXERCISE.id, EXERCISE.function)]]


def test_does_a_file_check_every_exercise_of_the_lesson(tmp_path):
    answer_file = tmp_path / "answer.py"
    answer_file.write_text(CODE)
    checker = StandIn()
    answer = CheckService(lambda request: checker).answer(
        {"lesson": LESSON.id, "exercise": None, "path": str(answer_file), "source": "answer.py", "seeds": "all"})
    assert "id" not in answer.reply and answer.reply["exit_code"] == 0
    assert answer.reply["statuses"] == {e.id: "pass" for e in LESSON.exercises}
    assert answer.result.source == "answer.py" and checker.checked[0]["cells"] == [CODE]


def test_is_a_hidden_check_outside_a_course_skipped_in_a_kernel_and_an_error_from_a_file(tmp_path):
    refused = NoHiddenInputs("no hidden inputs here")
    kernel = CheckService(lambda request: StandIn(raises=refused)).answer(_kernel_request(seeds="hidden"))
    assert kernel.reply == {"skipped": say("check.hidden.at_grading", lesson=LESSON.id, exercise=EXERCISE.id)}
    answer_file = tmp_path / "answer.py"
    answer_file.write_text(CODE)
    terminal = CheckService(lambda request: StandIn(raises=refused)).answer(
        {"lesson": LESSON.id, "path": str(answer_file), "seeds": "hidden"})
    assert terminal.reply == {"problem": "no hidden inputs here", "exit_code": NoHiddenInputs.exit_code}


def test_are_public_hidden_inputs_said_under_the_verdict():
    service = CheckService(lambda request: StandIn(hidden=HiddenInputs(public=True)))
    assert service.answer(_kernel_request()).reply["note"] == say("check.hidden.public")
    assert "note" not in service.answer(_kernel_request(seeds="visible")).reply


def test_are_unknown_lessons_and_malformed_lines_problems_not_crashes():
    service = CheckService(lambda request: StandIn())
    unknown = service.answer_line(json.dumps(_kernel_request(lesson="lesson99")))
    assert "lesson99" in unknown.reply["problem"] and unknown.reply["exit_code"] == 2
    for line in (b"{not json", b"[1, 2]", json.dumps({"exercise": EXERCISE.id}).encode()):
        answer = service.answer_line(line)
        assert list(answer.reply) == ["problem"] and answer.reply["problem"], line
    stopped = CheckService(lambda request: StandIn(), problem="the course's secret is malformed")
    assert stopped.answer_line(json.dumps(_kernel_request())).reply == {"problem": "the course's secret is malformed"}
    assert stopped.answer_line(b"{not json").reply == {"problem": "the course's secret is malformed"}


def test_does_the_line_host_reply_then_run_its_step_then_prepare():
    checker = StandIn()
    service = CheckService(lambda request: checker)
    requests_in, requests_out = os.pipe()
    replies_in, replies_out = os.pipe()
    lines = ["", json.dumps(_kernel_request()), "{}", json.dumps(_kernel_request(seeds="visible"))]
    os.write(requests_out, ("\n".join(lines) + "\n").encode())
    os.close(requests_out)
    order = []

    def after(answer):  # the host's own step (a judge records progress): the reply is out, nothing prepared yet
        sent = os.read(replies_in, 1 << 16).decode().splitlines()
        order.append((json.loads(sent[-1]).get("status"), len(checker.prepared)))

    reader = ipc.MessageReader(requests_in)
    try:
        serve_lines(reader, replies_out, service.answer_line, after)
    finally:
        reader.close()
        os.close(replies_out)
        os.close(replies_in)
    assert order == [("pass", 0), (None, 1), ("pass", 1)]  # a blank line gets no reply, {} gets a problem
    assert checker.prepared == [LESSON.id, LESSON.id]  # each after its host's step; a problem prepares nothing
