"""Does every wrong answer in tests/answers/ get the verdict and diagnosis a learner needs?

Each lesson keeps, per exercise, the mistakes people really make (and one
correct alternative); the checker must fail the mistakes with the right first
line and pass the alternative.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from gradtutor import course

ANSWERS = Path(__file__).parent / "answers"


def _answers():
    for path in sorted(ANSWERS.glob("*.toml")):
        lesson = path.stem
        for number, entry in enumerate(tomllib.loads(path.read_text())["answer"], start=1):
            yield pytest.param(lesson, entry, id=f"{lesson}-{entry['exercise']}-{number}")


@pytest.mark.tf
@pytest.mark.parametrize("lesson_id, answer", list(_answers()))
def test_answer_gets_expected_verdict(grade, lesson_id, answer):
    result = grade(lesson_id, answer["exercise"], answer["code"])
    first_line = result.message.splitlines()[0]
    assert result.status == answer["expect"], f"{answer['name']}: got {result.status}: {first_line}"
    if answer.get("diagnosis"):
        assert answer["diagnosis"].lower() in first_line.lower(), f"{answer['name']}: {first_line}"
    assert (result.points == result.max_points) == (answer["expect"] == "pass")


@pytest.mark.unit
def test_every_exercise_has_three_wrong_answers_and_a_right_one():
    for lesson in course.load().lessons:
        path = ANSWERS / f"{lesson.id}.toml"
        assert path.is_file(), f"{path} is missing"
        entries = tomllib.loads(path.read_text())["answer"]
        for exercise in lesson.exercises:
            mine = [e for e in entries if e["exercise"] == exercise.id]
            wrong = [e for e in mine if e["expect"] != "pass"]
            assert len(wrong) >= 3, f"{lesson.id} {exercise.id}: only {len(wrong)} wrong answers"
            assert any(e["expect"] == "pass" for e in mine), f"{lesson.id} {exercise.id}: no correct alternative"
            assert all(e.get("diagnosis") for e in wrong if e["expect"] == "fail"), \
                f"{lesson.id} {exercise.id}: a failing answer without the diagnosis it must get"
