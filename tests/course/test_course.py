"""The course self-check: is the manifest consistent with every file, and does every lesson work?

Like `rustlings dev check`: names are unique, every exercise has its notebook
cells, reference and hints, committed notebooks are clean, every solution
passes and every untouched starter is "not attempted".
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gradtutor import messages
from gradtutor.course import conventions
from gradtutor.course import manifest as course
from gradtutor.course.references import reference_module
from gradtutor.dev import lesson_files
from gradtutor.dev.answers import answers_path, load_answers

REPO = Path(__file__).resolve().parents[2]
COURSE = course.load()
LESSONS = [pytest.param(lesson, id=lesson.id) for lesson in COURSE.lessons]


def _notebook(path: Path) -> dict:
    return json.loads(path.read_text())


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


@pytest.mark.unit
def test_are_lesson_names_unique_and_numbered_in_order():
    assert [l.number for l in COURSE.lessons] == list(range(1, len(COURSE.lessons) + 1))
    for attribute in ("id", "slug", "title"):
        values = [getattr(l, attribute) for l in COURSE.lessons]
        assert len(set(values)) == len(values), f"duplicate lesson {attribute}"
    assert [l.id for l in COURSE.lessons] == [f"lesson{l.number}" for l in COURSE.lessons]


@pytest.mark.unit
def test_can_a_lesson_be_named_three_ways():
    for lesson in COURSE.lessons:
        assert COURSE.lesson(lesson.id) is lesson
        assert COURSE.lesson(str(lesson.number)) is lesson
        assert COURSE.lesson(lesson.slug) is lesson
    with pytest.raises(course.UnknownLesson, match="choose one of"):
        COURSE.lesson("lesson99")


@pytest.mark.unit
@pytest.mark.parametrize("lesson", LESSONS)
def test_is_each_exercise_fully_described(lesson):
    assert list(lesson_files.unfinished(lesson)) == []  # what `dev check` says of a lesson still being written
    ids = [e.id for e in lesson.exercises]
    functions = [e.function for e in lesson.exercises]
    assert len(set(ids)) == len(ids) and len(set(functions)) == len(functions)
    for exercise in lesson.exercises:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", exercise.id), exercise.id
        assert exercise.points >= 1


@pytest.mark.tf
@pytest.mark.parametrize("lesson", LESSONS)
def test_does_the_reference_module_match_the_manifest(lesson):
    module = reference_module(lesson.id)
    assert set(module.EXERCISES) == {e.id for e in lesson.exercises}


@pytest.mark.unit
@pytest.mark.parametrize("lesson", LESSONS)
def test_are_the_source_notebook_cells_graded_as_the_manifest_says(lesson):
    cells = _notebook(lesson.source_notebook())["cells"]
    by_id = {c["metadata"].get("nbgrader", {}).get("grade_id"): c for c in cells}
    for exercise in lesson.exercises:
        answer = by_id.get(exercise.id)
        assert answer is not None, f"{lesson.id}: no answer cell with grade_id {exercise.id}"
        meta = answer["metadata"]["nbgrader"]
        assert meta["solution"] is True and meta["grade"] is False
        assert re.search(rf"^def {exercise.function}\(", _source(answer), re.M)
        assert "### BEGIN SOLUTION" in _source(answer)
        test = by_id.get(f"check_{exercise.id}")
        assert test is not None, f"{lesson.id}: no test cell check_{exercise.id}"
        meta = test["metadata"]["nbgrader"]
        assert meta["grade"] is True and meta["locked"] is True and meta["solution"] is False
        assert meta["points"] == exercise.points, f"{lesson.id} {exercise.id}: points differ from the manifest"
        source = _source(test)
        assert f'check("{lesson.id}", "{exercise.id}", {exercise.function}' in source
        assert "### BEGIN HIDDEN TESTS" in source and 'seeds="hidden"' in source


@pytest.mark.unit
@pytest.mark.parametrize("lesson", LESSONS)
@pytest.mark.parametrize("kind", ["solutions", "lessons"])
@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_are_committed_notebooks_clean(lesson, kind, lang):
    path = REPO / kind / lesson.id / lesson.notebook_name(lang)
    notebook = _notebook(path)
    assert notebook["nbformat"] == 4
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    for number, cell in enumerate(notebook["cells"], start=1):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path} cell {number} has outputs"
            assert cell.get("execution_count") is None, f"{path} cell {number} has an execution count"
        assert set(cell.get("metadata", {})) <= {"nbgrader", "tags", "id", "editable", "deletable",
                                                 conventions.METADATA_KEY}, \
            f"{path} cell {number} has stray metadata {sorted(cell['metadata'])}"
        # gradtutor's own marking: a code cell that is a demonstration, and nothing else
        marks = cell.get("metadata", {}).get(conventions.METADATA_KEY)
        assert marks is None or (marks == {conventions.DEMONSTRATION: True} and cell["cell_type"] == "code"
                                 and "nbgrader" not in cell["metadata"]), f"{path} cell {number}: {marks}"
    assert sorted(p.name for p in path.parent.iterdir()) == sorted(lesson.notebook_name(other) for other in
                                                                  messages.LANGUAGES), f"stray files in {path.parent}"


@pytest.mark.tf
@pytest.mark.parametrize("lesson", LESSONS)
def test_does_every_solution_pass(checker, lesson):
    result = checker.check_file(lesson, lesson.source_notebook())
    assert [(e.id, e.status) for e in result.exercises] == [(e.id, "pass") for e in lesson.exercises], \
        [e.message for e in result.exercises if e.status != "pass"]
    assert result.exit_code == 0


@pytest.mark.tf
@pytest.mark.parametrize("lesson", LESSONS)
def test_is_every_untouched_starter_not_attempted(checker, lesson):
    result = checker.check_file(lesson, lesson.release_notebook())
    assert {e.status for e in result.exercises} == {"not_attempted"}
    assert result.exit_code == 1


@pytest.mark.unit
@pytest.mark.parametrize("lesson", LESSONS)
def test_do_wrong_answers_name_real_exercises(lesson):
    assert load_answers(answers_path(REPO, lesson.id), lesson)  # raises CourseError for a wrong entry


@pytest.mark.unit
def test_is_there_one_answers_file_per_lesson():
    assert all(answers_path(REPO, l.id).is_file() for l in COURSE.lessons)
    assert sorted(p.parent.name for p in (REPO / "gradtutor/course/lessons").glob("*/answers.toml")) == sorted(
        l.id for l in COURSE.lessons), "an answers.toml in a folder course.toml does not list"


@pytest.mark.unit
@pytest.mark.parametrize("lesson", LESSONS)
def test_does_the_lesson_have_every_file_and_translation(lesson):
    """What `gradtutor dev check` asks of a lesson's folder and notebooks (gradtutor.dev.lesson_files)."""
    assert list(lesson_files.problems(lesson)) == []


@pytest.mark.unit
def test_is_each_missing_lesson_file_one_line(tmp_path):
    lesson = COURSE.lessons[0]
    empty = course.Lesson(lesson.id, lesson.number, lesson.slug, lesson.title, lesson.notebook, lesson.summary,
                          lesson.exercises, tmp_path)
    found = list(lesson_files.problems(empty))
    missing = ["reference.py", "answers.toml", f"test_claims_{lesson.id}.py", "zh_CN.toml"]
    assert [line.split(" is missing")[0] for line in found] == [f"{lesson.id}: {tmp_path / name}" for name in missing]
    renamed = course.Lesson(lesson.id, lesson.number, lesson.slug, "A title no one translated", lesson.notebook,
                            lesson.summary, lesson.exercises, lesson.folder)
    [line] = lesson_files.problems(renamed)
    assert f"1 text(s) have no zh_CN translation of their current English ({lesson.id}.title)" in line, line
    short = course.Lesson(lesson.id, lesson.number, lesson.slug, lesson.title, lesson.notebook, lesson.summary,
                          lesson.exercises[:1], lesson.folder)
    assert list(lesson_files.unfinished(short)) == [f"{lesson.id}: 1 exercise(s); a finished lesson has at least 3"]
