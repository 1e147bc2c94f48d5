"""Does the page a student gets on submitting draw each verdict, escaped, from checking's result alone?"""
from __future__ import annotations

import re

import pytest

from gradtutor.checking.compare import ElementReport
from gradtutor.checking.verdict import ExerciseResult, LessonResult
from gradtutor.classroom.feedback import instant_feedback
from gradtutor.course import manifest as course
from gradtutor.protocol import Cause

pytestmark = pytest.mark.unit

LESSON = course.load().lesson("lesson1")


class CheckerOf:
    """Answers check_cells with a made result, as the warm checker answers with a checked one."""

    def __init__(self, result: LessonResult):
        self.result, self.asked = result, []

    def check_cells(self, lesson, cells, seeds, source):
        self.asked.append((lesson.id, seeds, source))
        return self.result


def test_the_page_draws_each_verdict_in_a_section_a_program_can_read():
    differs = ElementReport(0, None, "values", "differs", exact=False, allclose=False, max_abs_diff=0.5,
                            worst_index=(2,), learner_at_worst=1.5, reference_at_worst=1.0)
    exercises = [ExerciseResult(e.id, e.function, "pass", "ok", e.points, e.points) for e in LESSON.exercises]
    failing = exercises[1]
    exercises[1] = ExerciseResult(failing.id, failing.function, "fail", f"{failing.function}() differs <b>", 0,
                                  failing.max_points, reports=[differs], cause=Cause.UNKNOWN)
    checker = CheckerOf(LessonResult(LESSON, LESSON.notebook, exercises))

    page, score = instant_feedback.verdict_page(checker, LESSON, cells=[], timestamp="2026-01-01 10:00")

    assert checker.asked == [(LESSON.id, "visible", LESSON.notebook)]  # the visible inputs only: no secret here
    assert score == f"{len(exercises) - 1}/{len(exercises)}"
    sections = re.findall(r'<section data-exercise="([^"]*)" data-status="([^"]*)" data-cause="([^"]*)"', page)
    assert sections == [(e.id, e.status.value, e.cause.value if e.cause else "") for e in exercises]
    assert "differs &lt;b&gt;" in page and "differs <b>" not in page  # the learner's words never become markup
    assert "[2]: 1.5 vs 1" in page  # the failure's comparison: where and by how much
    assert page.count("<table>") == 1  # only the failure draws one
