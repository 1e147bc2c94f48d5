"""Does the first line name the cause and the fix, preferring the lesson's own rules?"""
from __future__ import annotations

import pytest

from gradtutor.compare import ElementReport
from gradtutor.course import Diagnosis, Exercise
from gradtutor.diagnose import explain_error, explain_failure
from gradtutor.protocol import Cause

pytestmark = pytest.mark.unit

RULES = (
    Diagnosis(when="none", source_lacks=r"\.watch\(", say="x is a tf.constant the tape never watched — call tape.watch(x)"),
    Diagnosis(when="none", say="the gradient is None"),
    Diagnosis(when="error", error_has="RuntimeError", say="use persistent=True"),
)
EXERCISE = Exercise("watch_constant", "grad_of_cube", 1, ("h",), RULES)


def test_does_a_lesson_rule_win_when_its_source_pattern_matches():
    report = ElementReport(0, None, "none", "is None")
    cause, line = explain_failure(EXERCISE, report, "def grad_of_cube(x):\n    return tape.gradient(y, x)")
    assert line.startswith("grad_of_cube() returned None") and "tape.watch(x)" in line


def test_does_the_next_rule_apply_when_the_pattern_does_not():
    report = ElementReport(0, None, "none", "is None")
    cause, line = explain_failure(EXERCISE, report, "def grad_of_cube(x):\n    tape.watch(x)\n    return g")
    assert line.endswith("the gradient is None")


def test_is_a_missing_return_told_apart():
    report = ElementReport(0, None, "none", "is None")
    cause, line = explain_failure(EXERCISE, report, "def grad_of_cube(x):\n    g = 1")
    assert "forget to return" in line and cause is Cause.NO_RETURN


def test_does_generic_advice_cover_types_without_rules():
    report = ElementReport(0, 1, "type", "is a numpy array, expected a tf.Tensor", learner_type="a numpy array")
    cause, line = explain_failure(EXERCISE, report, "def grad_of_cube(x): return 1")
    assert "element 1" in line and ".numpy()" in line and cause is Cause.WRONG_TYPE


def test_does_an_error_show_the_learners_line_and_a_matching_rule():
    error = {"type": "RuntimeError", "message": "A non-persistent GradientTape can only be used once",
             "where": "lesson2.ipynb, cell 9, line 5", "line": "  g2 = tape.gradient(b, x)"}
    cause, line = explain_error(EXERCISE, error, "def grad_of_cube(x): pass")
    assert "raised RuntimeError" in line and "cell 9, line 5" in line and line.endswith("use persistent=True")
    assert "\n" not in line and cause is Cause.RAISED
