"""Do the terminal, HTML and JSON reports show what a learner needs, safely?"""
from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from gradtutor.course import manifest as course
from gradtutor.learner import verdict_view as report
from gradtutor.checking.compare import ElementReport
from gradtutor.checking.verdict import ExerciseResult, LessonResult

pytestmark = pytest.mark.unit

LESSON = course.load().lesson("lesson1")


def _result():
    failing = ElementReport(0, None, "values", "differs", exact=False, allclose=False, max_abs_diff=0.5,
                            worst_index=(2,), learner_at_worst=1.5, reference_at_worst=1.0)
    exercises = [
        ExerciseResult("watch_constant", "grad_of_cube", "pass", "ok", 1, 1),
        ExerciseResult("numpy_input", "grad_from_numpy", "fail", "grad_from_numpy() differs <b>", 0, 1,
                       reports=[failing], output="debug print"),
        ExerciseResult("frozen_weight", "grads_with_frozen_weight", "not_attempted", "not attempted", 0, 2),
    ]
    return LessonResult(LESSON, "lesson1.ipynb", exercises)


def test_does_json_follow_the_contract():
    data = json.loads(report.to_json(_result()))
    assert set(data) >= {"lesson", "exercises", "passed", "total"}
    assert data["passed"] == 1 and data["total"] == 3
    assert set(data["exercises"][0]) >= {"id", "status", "message", "points"}


def test_does_the_terminal_table_show_statuses_comparison_and_summary():
    buffer = io.StringIO()
    report.print_lesson(Console(file=buffer, width=140), _result())
    text = buffer.getvalue()
    for words in ("pass", "fail", "not attempted", "1/3 passed", "1/4 points", "max abs diff", "[2]: 1.5 vs 1",
                  "debug print", "gradtutor hint lesson1"):
        assert words in text, words


def test_is_notebook_html_escaped_and_tabled():
    one = _result().exercises[1]
    html = report.verdict_html("lesson1", one.id, one.status, one.message, report.comparison_rows(one.reports))
    assert "&lt;b&gt;" in html and "<b>" not in html.replace("<b style", "")
    assert "max abs diff" in html and "worst element" in html
