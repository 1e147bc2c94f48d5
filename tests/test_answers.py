"""Does every wrong answer in tests/answers/ get the verdict and diagnosis a learner needs?

Each lesson keeps, per exercise, the mistakes people really make (and one
correct alternative); the checker must fail the mistakes with the right first
line and pass the alternative. The file format and the verdict rule are
gradtutor.dev.answers', which `gradtutor dev check` uses too.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from gradtutor import course
from gradtutor.dev.answers import answers_path, load_answers, verdict_problem

REPO = Path(__file__).resolve().parent.parent


def _answers():
    for lesson in course.load().lessons:
        for answer in load_answers(answers_path(REPO, lesson.id), lesson):
            yield pytest.param(answer, id=f"{lesson.id}-{answer.exercise}-{answer.number}")


@pytest.mark.tf
@pytest.mark.parametrize("answer", list(_answers()))
def test_answer_gets_expected_verdict(grade, answer):
    result = grade(answer.lesson, answer.exercise, answer.code)
    problem = verdict_problem(answer, result.status, result.message)
    assert problem is None, f"{answer.name}: {problem}"
    assert (result.points == result.max_points) == (answer.expect == "pass")


@pytest.mark.unit
def test_every_exercise_has_three_wrong_answers_and_a_right_one():
    for lesson in course.load().lessons:
        entries = load_answers(answers_path(REPO, lesson.id), lesson)
        for exercise in lesson.exercises:
            mine = [e for e in entries if e.exercise == exercise.id]
            wrong = [e for e in mine if e.expect != "pass"]
            assert len(wrong) >= 3, f"{lesson.id} {exercise.id}: only {len(wrong)} wrong answers"
            assert any(e.expect == "pass" for e in mine), f"{lesson.id} {exercise.id}: no correct alternative"
            assert all(e.diagnosis for e in wrong if e.expect == "fail"), \
                f"{lesson.id} {exercise.id}: a failing answer without the diagnosis it must get"
