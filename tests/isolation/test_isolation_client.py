"""Does the worker survive what a job's child does, and accept only this job's results?"""
from __future__ import annotations

import os

import pytest

from gradtutor.course import manifest as course
from gradtutor.course import extract
from gradtutor.isolation.client import Worker

pytestmark = pytest.mark.tf

LESSON = course.load().lesson("lesson1")
FIRST = LESSON.exercises[0]


@pytest.fixture(scope="module")
def worker():
    with Worker(memory_mb=1024) as shared:
        yield shared


def _job(source: str) -> dict:
    cells = [extract.Cell("answer.py", "import tensorflow as tf\n" + source).to_json()]
    return {"kind": "learner", "lesson": LESSON.id, "cells": cells, "seeds": [0],
            "exercises": [{"id": FIRST.id, "function": FIRST.function}]}


def test_does_a_child_that_kills_the_worker_only_cost_its_own_verdict(worker):
    outcome = worker.run(_job(f"import os, signal\ndef {FIRST.function}(x):\n    os.kill(os.getppid(), signal.SIGKILL)"), 20)
    assert outcome.slots == [None] or outcome.slots[0][0]["status"] == "error"
    again = worker.run(_job(f"def {FIRST.function}(x):\n    raise NotImplementedError()"), 20)
    assert again.slots[0][0]["status"] == "not_attempted"


def test_is_a_memory_flood_a_memory_error_under_the_cap(worker):
    outcome = worker.run(_job(f"def {FIRST.function}(x):\n    return bytearray(4 * 1024**3)"), 60)
    result = outcome.slots[0][0]
    assert result["status"] == "error" and result["error"]["type"] == "MemoryError"


def test_can_learner_code_not_write_outside_its_scratch_folder(worker, tmp_path):
    target = tmp_path / "victim.txt"
    target.write_text("mine")
    code = f"def {FIRST.function}(x):\n    open({str(target)!r}, 'w').write('gone')\n    return x"
    outcome = worker.run(_job(code), 20)
    result = outcome.slots[0][0]
    assert result["status"] == "error" and result["error"]["type"] == "PermissionError"
    assert target.read_text() == "mine"


def test_can_learner_code_not_import_the_references(worker):
    code = f"def {FIRST.function}(x):\n    import gradtutor.course.references.lesson1 as r\n    return r.reference_watch_constant(x)"
    result = worker.run(_job(code), 20).slots[0][0]
    assert result["status"] == "error" and "reference implementation" in result["error"]["message"]


def test_can_learner_code_not_read_a_lessons_reference_or_answers(worker):
    from gradtutor.isolation import policy

    for name in ("reference.py", "answers.toml"):
        path = os.path.join(policy.LESSONS_DIR, "lesson1", name)
        assert os.path.isfile(path), path
        code = f"def {FIRST.function}(x):\n    open({path!r}).read()\n    return x"
        result = worker.run(_job(code), 20).slots[0][0]
        assert result["status"] == "error" and "reference implementation" in result["error"]["message"], result


def test_can_learner_code_not_start_processes(worker):
    code = f"import subprocess\ndef {FIRST.function}(x):\n    subprocess.run(['true'])\n    return x"
    result = worker.run(_job(code), 20).slots[0][0]
    assert result["status"] == "error" and "other processes" in result["error"]["message"]


def test_can_learner_code_not_import_the_fork_server(worker):
    code = f"def {FIRST.function}(x):\n    import gradtutor.isolation.server\n    return x"
    result = worker.run(_job(code), 20).slots[0][0]
    assert result["status"] == "error" and "reference implementation" in result["error"]["message"]


def test_does_an_exercise_asked_twice_in_one_child_get_its_inputs_as_built_both_times(worker):
    # the child hands out the inputs it built at the last call of an exercise, copies before it:
    # an answer that changes its model must not change what a later call of it is given
    lesson2 = course.load().lesson("lesson2")
    first = lesson2.exercises[0]
    code = ("import keras\nimport tensorflow as tf\n"
            f"def {first.function}(model, inp):\n    model.layers[-1].activation = keras.activations.linear\n"
            "    with tf.GradientTape() as tape:\n        out = model(inp, training=False)[:, 0]\n"
            "    return tape.gradient(out, inp)\n")
    job = {"kind": "learner", "lesson": lesson2.id, "cells": [extract.Cell("answer.py", code).to_json()],
           "seeds": [0, 1], "exercises": [{"id": first.id, "function": first.function}] * 2}
    slots = worker.run(job, 60).slots
    assert [slot[0]["status"] for slot in slots] == ["ok", "ok"]
    assert [slot[0]["facts"]["inputs_modified"] for slot in slots] == [["input 0 (the model)"]] * 2
