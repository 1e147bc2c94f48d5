"""The course self-check: is the manifest consistent with every file, and does every lesson work?

Like `rustlings dev check`: names are unique, every exercise has its notebook
cells, reference and hints, committed notebooks are clean, every solution
passes and every untouched starter is "not attempted".
"""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from gradtutor import messages
from gradtutor.course import manifest as course
from gradtutor.course import schema as course_schema
from gradtutor.dev.answers import answers_dir, answers_path, load_answers

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
    assert len(lesson.exercises) >= 3, f"{lesson.id} needs at least 3 exercises"
    ids = [e.id for e in lesson.exercises]
    functions = [e.function for e in lesson.exercises]
    assert len(set(ids)) == len(ids) and len(set(functions)) == len(functions)
    for exercise in lesson.exercises:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", exercise.id), exercise.id
        assert exercise.points >= 1
        assert len(exercise.hints) >= 3, f"{lesson.id} {exercise.id}: a hint ladder has at least 3 rungs"
        assert exercise.diagnoses, f"{lesson.id} {exercise.id}: no diagnoses"


@pytest.mark.tf
@pytest.mark.parametrize("lesson", LESSONS)
def test_does_the_reference_module_match_the_manifest(lesson):
    module = importlib.import_module(f"gradtutor.course.references.{lesson.id}")
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
        assert set(cell.get("metadata", {})) <= {"nbgrader", "tags", "id", "editable", "deletable"}, \
            f"{path} cell {number} has stray metadata {sorted(cell['metadata'])}"
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
    assert sorted(p.stem for p in answers_dir(REPO).glob("*.toml")) == sorted(l.id for l in COURSE.lessons)


# --------------------------------------------------------------------------- the manifest validates itself

VALID = """
format_version = 1
[course]
title = "T"
[[lessons]]
id = "lesson1"
number = 1
slug = "one"
title = "One"
notebook = "lesson1.ipynb"
[[lessons.exercises]]
id = "ex"
function = "f"
points = 1
hints = ["h"]
[[lessons.exercises.diagnoses]]
id = "watch-x"
when = "none"
source_has = 'x'
say = "s"
cause = "unwatched"
"""
SECOND = """
[[lessons]]
id = "lesson2"
number = 2
slug = "two"
title = "Two"
notebook = "lesson2.ipynb"
[[lessons.exercises]]
id = "ex"
function = "f"
points = 1
"""

BROKEN = {
    "unknown course key": (('title = "T"', 'title = "T"\ntitel = "x"'), "[course], key 'titel'"),
    "unknown lesson key": (("number = 1", "number = 1\nnmber = 1"), "lesson lesson1, key 'nmber'"),
    "unknown exercise key": (("points = 1", "points = 1\npoint = 1"), "lesson lesson1 exercise ex, key 'point'"),
    "unknown diagnosis key": (('say = "s"', 'say = "s"\nsourcehas = "x"'),
                              "lesson lesson1 exercise ex diagnosis watch-x, key 'sourcehas'"),
    "misspelt when": (('when = "none"', 'when = "nones"'), "diagnosis watch-x, key 'when': 'nones' is not a symptom"),
    "rule without an id": (('id = "watch-x"\n', ""), "exercise ex diagnosis 1, key 'id': is missing"),
    "two rules with one id": (("", '[[lessons.exercises.diagnoses]]\nid = "watch-x"\nwhen = "none"\nsay = "t"\n'
                                   'cause = "unwatched"\n'),
                              "exercise ex diagnosis watch-x, key 'id': 'watch-x' is used by another rule"),
    "regex that does not compile": (("source_has = 'x'", "source_has = '(x'"), "key 'source_has'"),
    "missing required key": (('function = "f"\n', ""), "lesson lesson1 exercise ex, key 'function': is missing"),
    "wrong type": (("points = 1", 'points = "1"'), "key 'points': is str '1' — make it an integer"),
    "no points": (("points = 1", "points = 0"), "key 'points'"),
    "unknown requirement": (("points = 1", 'points = 1\nrequires = ["tapes"]'),
                            "lesson lesson1 exercise ex, key 'requires': names 'tapes' — use one of: tape, numpy"),
    "format version": (("format_version = 1", "format_version = 2"), "top level, key 'format_version'"),
    "no format version": (("format_version = 1", ""), "top level, key 'format_version': is missing"),
    "lesson id not a module name": (('id = "lesson1"', 'id = "Lesson-1"'), "key 'id'"),
    "duplicate lesson id": (("", SECOND.replace('"lesson2"', '"lesson1"')), "lesson lesson1, key 'id'"),
    "duplicate slug": (("", SECOND.replace('"two"', '"one"')), "lesson lesson2, key 'slug': 'one' is already used"),
    "slug that is another id": (("", SECOND.replace('"two"', '"lesson1"')), "lesson lesson2, key 'slug'"),
    "duplicate number": (("", SECOND.replace("number = 2", "number = 1")), "lesson lesson2, key 'number'"),
    "duplicate exercise id": (("", '[[lessons.exercises]]\nid = "ex"\nfunction = "g"\npoints = 1\n'),
                              "lesson lesson1 exercise ex, key 'id': 'ex' is already used"),
    "duplicate function": (("", '[[lessons.exercises]]\nid = "ex2"\nfunction = "f"\npoints = 1\n'),
                           "lesson lesson1 exercise ex2, key 'function'"),
    "not TOML": (("[course]", "[course"), "not valid TOML"),
}


@pytest.mark.unit
@pytest.mark.parametrize("change, expected", BROKEN.values(), ids=list(BROKEN))
def test_is_a_broken_manifest_one_line_naming_file_lesson_and_key(tmp_path, change, expected):
    old, new = change
    text = VALID.replace(old, new, 1) if old else VALID + new
    manifest = tmp_path / "course.toml"
    manifest.write_text(text)
    with pytest.raises(course.CourseError) as raised:
        course.load_manifest(manifest)
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{manifest}: "), message
    assert expected in message, message
    assert " — " in message, f"no advice in: {message}"
    assert raised.value.exit_code == 2


@pytest.mark.unit
def test_does_a_valid_manifest_load(tmp_path):
    manifest = tmp_path / "course.toml"
    manifest.write_text(VALID + SECOND)
    loaded = course.load_manifest(manifest)
    assert [l.id for l in loaded.lessons] == ["lesson1", "lesson2"] and loaded.manifest == manifest
    assert loaded.lessons[0].exercises[0].diagnoses[0] == course.Diagnosis(when="none", say="s", source_has="x", cause="unwatched",
                                                                          id="watch-x", key="lesson1.ex.diagnosis.watch-x")


@pytest.mark.unit
def test_is_the_course_loaded_once_and_from_its_manifest():
    assert course.load() is course.load()
    assert course.load().manifest == course.MANIFEST
    assert course.load_manifest(course.MANIFEST) == course.load()


@pytest.mark.unit
def test_is_a_missing_manifest_one_line(tmp_path):
    with pytest.raises(course.CourseError, match="no such file"):
        course.load_manifest(tmp_path / "nowhere.toml")


@pytest.mark.unit
def test_do_the_points_match_the_solutions_notebooks():
    course_schema.check_points(COURSE)


@pytest.mark.unit
def test_are_points_that_differ_from_the_notebook_one_line(tmp_path):
    manifest = tmp_path / "course.toml"
    text = course.MANIFEST.read_text()
    exercise = COURSE.lessons[0].exercises[0]
    entry = f'id = "{exercise.id}"\nfunction = "{exercise.function}"\npoints = {exercise.points}'
    assert entry in text
    manifest.write_text(text.replace(entry, entry.replace(f"points = {exercise.points}", "points = 7")))
    broken = course.load_manifest(manifest)  # the notebooks are not read on load
    with pytest.raises(course.CourseError) as raised:
        course_schema.check_points(broken)
    message = str(raised.value)
    assert message.startswith(f"{manifest}: lesson {COURSE.lessons[0].id} exercise {exercise.id}, key 'points'")
    assert f"check_{exercise.id}" in message and "\n" not in message
