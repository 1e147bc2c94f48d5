"""Is a verdict a pure function of what the children reported? No process, no TensorFlow here."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gradtutor.checking import verdict
from gradtutor.course.manifest import Diagnosis, Exercise
from gradtutor.protocol import Cause, Status
from gradtutor.course.seeds import ALL_SEEDS, HIDDEN_SEEDS, VISIBLE_SEEDS

pytestmark = pytest.mark.unit

EXERCISE = Exercise("watch_constant", "grad_of_cube", 2, ("h",),
                    (Diagnosis(when="zeros", say="a softmax sums to one"),))
SOURCE = "def grad_of_cube(x):\n    return g\n"
EXPECTED = np.array([3.0, 12.0, 27.0], np.float32)


def _reference() -> verdict.Reference:
    results = {str(s): {"type": "Tensor", "dtype": "float32", "shape": [3], "key": f"r{s}"} for s in ALL_SEEDS}
    results["tolerance"] = {"rtol": 1e-5, "atol": 1e-6}
    return verdict.Reference(results, {f"r{s}": EXPECTED for s in ALL_SEEDS})


def _child(values_by_seed: dict) -> tuple[dict, dict]:
    results, arrays = {}, {}
    for seed, values in values_by_seed.items():
        if values is None:
            results[str(seed)] = {"type": "None"}
            continue
        results[str(seed)] = {"type": "Tensor", "dtype": "float32", "shape": [3], "key": f"l{seed}"}
        arrays[f"l{seed}"] = np.asarray(values, np.float32)
    return {"status": "ok", "results": results}, arrays


def _verdict(child, arrays=None, seeds=ALL_SEEDS):
    return verdict.from_child(EXERCISE, SOURCE, seeds, _reference(), child, arrays or {}, "printed", 4096)


def test_does_a_match_on_every_seed_pass_with_the_points():
    result = _verdict(*_child({s: EXPECTED for s in ALL_SEEDS}))
    assert result.status is Status.PASS and result.points == 2 and result.cause is None
    assert result.to_json()["status"] == "pass"


def test_does_a_rule_of_the_exercise_word_its_symptom():
    result = _verdict(*_child({s: np.zeros(3) for s in ALL_SEEDS}))
    assert result.status is Status.FAIL and result.message.endswith("a softmax sums to one")
    assert result.reports and result.points == 0


def test_is_none_with_no_return_told_apart():
    result = verdict.from_child(EXERCISE, "def grad_of_cube(x):\n    g = 1\n", ALL_SEEDS, _reference(),
                                *_child({s: None for s in ALL_SEEDS}), "", 4096)
    assert result.status is Status.FAIL and result.cause is Cause.NO_RETURN


def test_does_a_hidden_failure_name_no_reference_value():
    wrong = {s: (EXPECTED if s in VISIBLE_SEEDS else EXPECTED * 2) for s in ALL_SEEDS}
    result = _verdict(*_child(wrong))
    assert result.status is Status.FAIL and result.hidden and result.cause is Cause.HARD_CODED
    assert "27" not in result.message and "54" not in result.message and not result.reports


def test_does_a_hidden_only_check_say_the_visible_inputs_were_not_tried():
    result = _verdict(*_child({s: EXPECTED * 2 for s in HIDDEN_SEEDS}), seeds=HIDDEN_SEEDS)
    assert "an input you have not seen" in result.message and result.cause is not Cause.HARD_CODED


@pytest.mark.parametrize(("child", "status", "cause"), [
    ({"status": "not_attempted"}, Status.NOT_ATTEMPTED, Cause.NOT_ATTEMPTED),
    ({"status": "missing"}, Status.ERROR, Cause.MISSING),
    ({"status": "error", "error": {"type": "MemoryError", "message": ""}}, Status.ERROR, Cause.OUT_OF_MEMORY),
    ({"status": "error", "error": {"type": "ValueError", "message": "bad", "where": "a.py, line 2",
                                   "line": "return g"}}, Status.ERROR, Cause.RAISED),
    ({"status": "error", "error": {"type": "PermissionError", "message": "no"}}, Status.ERROR, Cause.SANDBOX),
    ({"status": "surprise"}, Status.ERROR, Cause.UNKNOWN),
    ({"status": "ok", "results": "not a dict"}, Status.ERROR, Cause.UNKNOWN),
    ({"status": "ok", "results": {}}, Status.ERROR, Cause.UNKNOWN),
])
def test_does_every_kind_of_child_result_get_its_status_and_cause(child, status, cause):
    result = _verdict(child)
    assert result.status is status and result.cause is cause and result.points == 0
    assert "\n" not in result.message and result.message


def test_is_a_missing_function_bad_input_and_a_missing_file_exit_2():
    result = _verdict({"status": "missing"})
    assert result.bad_input
    lesson_result = verdict.LessonResult(None, "f.py", [result])  # type: ignore[arg-type]
    assert lesson_result.exit_code == 2


def test_does_a_stopped_child_time_out_or_crash():
    timed_out = verdict.stopped(EXERCISE, True, None, 2.0, "")
    crashed = verdict.stopped(EXERCISE, False, "the process crashed with SIGSEGV", 2.0, "")
    assert timed_out.status is Status.TIMEOUT and "2 s" in timed_out.message and timed_out.cause is Cause.TIMEOUT
    assert crashed.status is Status.ERROR and "SIGSEGV" in crashed.message and crashed.cause is Cause.CRASHED


def test_does_the_verdict_layer_import_no_tensorflow_and_start_nothing():
    code = ("import sys, subprocess; from gradtutor import protocol; from gradtutor.checking import verdict, precheck, diagnose, compare; "
            "print('tensorflow' in sys.modules, 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
