"""Does the manifest validate itself: course.toml and every lesson's lesson.toml?

A broken manifest stops every command with one line naming the file (the lesson's own
lesson.toml for its entry), the lesson, the exercise and the key, and what to change.
Its translation keys are ids, never positions: inserting a hint or a rule moves no other key.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from gradtutor.course import manifest as course
from gradtutor.course import schema as course_schema

pytestmark = pytest.mark.unit

COURSE = course.load()
VALID = {
    "course": """
format_version = 2
lessons = ["lesson1"]
[course]
title = "T"
""",
    "lesson1": """
slug = "one"
title = "One"
notebook = "lesson1.ipynb"
[[exercises]]
id = "ex"
function = "f"
points = 1
hints = [{id = "nudge", say = "h"}]
[[exercises.diagnoses]]
id = "watch-x"
when = "none"
source_has = 'x'
say = "s"
cause = "unwatched"
""",
}
SECOND = """
slug = "two"
title = "Two"
notebook = "lesson2.ipynb"
[[exercises]]
id = "ex"
function = "f"
points = 1
"""
WITH_SECOND = ('lessons = ["lesson1"]', 'lessons = ["lesson1", "lesson2"]')

# what is broken -> (the file changed, (old, new): new appended when old is empty, the line's expected part);
# "lesson2" adds a second lesson (SECOND, with old replaced by new) to course.toml's list.
BROKEN = {
    "unknown course key": ("course", ('title = "T"', 'title = "T"\ntitel = "x"'), "[course], key 'titel'"),
    "unknown lesson key": ("lesson1", ('slug = "one"', 'slug = "one"\nnmber = 1'), "lesson lesson1, key 'nmber'"),
    "unknown exercise key": ("lesson1", ("points = 1", "points = 1\npoint = 1"), "lesson lesson1 exercise ex, key 'point'"),
    "unknown diagnosis key": ("lesson1", ('say = "s"', 'say = "s"\nsourcehas = "x"'),
                              "lesson lesson1 exercise ex diagnosis watch-x, key 'sourcehas'"),
    "misspelt when": ("lesson1", ('when = "none"', 'when = "nones"'),
                      "diagnosis watch-x, key 'when': 'nones' is not a symptom"),
    "rule without an id": ("lesson1", ('id = "watch-x"\n', ""), "exercise ex diagnosis 1, key 'id': is missing"),
    "two rules with one id": ("lesson1", ("", '[[exercises.diagnoses]]\nid = "watch-x"\nwhen = "none"\nsay = "t"\n'
                                              'cause = "unwatched"\n'),
                              "exercise ex diagnosis watch-x, key 'id': 'watch-x' is used by another rule"),
    "hint without an id": ("lesson1", ('{id = "nudge", say = "h"}', '{say = "h"}'),
                           "lesson lesson1 exercise ex hint 1, key 'id': is missing"),
    "two hints with one id": ("lesson1", ('{id = "nudge", say = "h"}', '{id = "nudge", say = "h"}, {id = "nudge", say = "g"}'),
                              "exercise ex hint nudge, key 'id': 'nudge' is used by another hint"),
    "hint as a bare string": ("lesson1", ('{id = "nudge", say = "h"}', '"h"'),
                              "lesson lesson1 exercise ex, key 'hints': has an item of the wrong type"),
    "regex that does not compile": ("lesson1", ("source_has = 'x'", "source_has = '(x'"), "key 'source_has'"),
    "missing required key": ("lesson1", ('function = "f"\n', ""), "lesson lesson1 exercise ex, key 'function': is missing"),
    "wrong type": ("lesson1", ("points = 1", 'points = "1"'), "key 'points': is str '1' — make it an integer"),
    "no points": ("lesson1", ("points = 1", "points = 0"), "key 'points'"),
    "unknown requirement": ("lesson1", ("points = 1", 'points = 1\nrequires = ["tapes"]'),
                            "lesson lesson1 exercise ex, key 'requires': names 'tapes' — use one of: tape, numpy"),
    "format version": ("course", ("format_version = 2", "format_version = 1"), "top level, key 'format_version'"),
    "a manifest of format 1": ("course", ('format_version = 2\nlessons = ["lesson1"]', 'format_version = 1\n[[lessons]]\nid = "lesson1"'),
                               "top level, key 'format_version': is 1, but this gradtutor reads format 2"),
    "no format version": ("course", ("format_version = 2", ""), "top level, key 'format_version': is missing"),
    "lesson id not a module name": ("course", ('"lesson1"]', '"Lesson-1"]'), "top level, key 'lessons': 'Lesson-1'"),
    "lesson listed twice": ("course", ('"lesson1"]', '"lesson1", "lesson1"]'), "key 'lessons': 'lesson1' is listed twice"),
    "listed lesson without a folder": ("course", ('"lesson1"]', '"lesson1", "lesson9"]'),
                                       "top level, key 'lessons': lists 'lesson9', but "),
    "duplicate slug": ("lesson2", ('"two"', '"one"'), "lesson lesson2, key 'slug': 'one' is already used"),
    "slug that is another id": ("lesson2", ('"two"', '"lesson1"'), "lesson lesson2, key 'slug'"),
    "duplicate exercise id": ("lesson1", ("", '[[exercises]]\nid = "ex"\nfunction = "g"\npoints = 1\n'),
                              "lesson lesson1 exercise ex, key 'id': 'ex' is already used"),
    "duplicate function": ("lesson1", ("", '[[exercises]]\nid = "ex2"\nfunction = "f"\npoints = 1\n'),
                           "lesson lesson1 exercise ex2, key 'function'"),
    "not TOML": ("course", ("[course]", "[course"), "not valid TOML"),
    "lesson not TOML": ("lesson1", ("[[exercises]]", "[[exercises]"), "not valid TOML"),
}


def write_course(root: Path, texts: dict[str, str]) -> Path:
    """course.toml and each lesson's lesson.toml, laid out as in the package; the course.toml's path."""
    for name, text in texts.items():
        path = root / "course.toml" if name == "course" else root / "lessons" / name / course.LESSON_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "course.toml"


def _broken(file: str, change: tuple[str, str]) -> dict[str, str]:
    old, new = change
    texts = dict(VALID)
    if file == "lesson2":
        texts["course"] = texts["course"].replace(*WITH_SECOND)
        texts["lesson2"] = SECOND.replace(old, new, 1)
    else:
        texts[file] = texts[file].replace(old, new, 1) if old else texts[file] + new
    return texts


@pytest.mark.parametrize("file, change, expected", BROKEN.values(), ids=list(BROKEN))
def test_is_a_broken_manifest_one_line_naming_file_lesson_and_key(tmp_path, file, change, expected):
    manifest = write_course(tmp_path, _broken(file, change))
    named = manifest if file == "course" else tmp_path / "lessons" / file / course.LESSON_FILE
    with pytest.raises(course.CourseError) as raised:
        course.load_manifest(manifest)
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{named}: "), message
    assert expected in message, message
    assert " — " in message, f"no advice in: {message}"
    assert raised.value.exit_code == 2


def test_does_a_valid_manifest_load(tmp_path):
    manifest = write_course(tmp_path, {**VALID, "course": VALID["course"].replace(*WITH_SECOND), "lesson2": SECOND})
    loaded = course.load_manifest(manifest)
    assert [(l.id, l.number) for l in loaded.lessons] == [("lesson1", 1), ("lesson2", 2)]
    assert loaded.manifest == manifest and loaded.lessons[1].manifest == tmp_path / "lessons/lesson2/lesson.toml"
    exercise = loaded.lessons[0].exercises[0]
    assert exercise.diagnoses[0] == course.Diagnosis(when="none", say="s", source_has="x", cause="unwatched",
                                                     id="watch-x", key="lesson1.ex.diagnosis.watch-x")
    assert exercise.hints == ("h",) and exercise.hint_keys == ("lesson1.ex.hint.nudge",)


def test_does_inserting_a_hint_or_a_rule_in_the_middle_change_no_other_key(tmp_path):
    """Translations are keyed by ids: a new hint or rule between others leaves every other key on its text."""
    lesson = COURSE.lessons[0]
    text = lesson.manifest.read_text(encoding="utf-8")
    exercise = lesson.exercises[0]
    first_hint = next(line for line in text.splitlines() if line.strip().startswith("{id = "))
    second_rule = text.index("[[exercises.diagnoses]]", text.index("[[exercises.diagnoses]]") + 1)
    assert len(exercise.hints) >= 2 and text.index(first_hint) < second_rule, "lesson1 has a middle to insert into"
    rule = '[[exercises.diagnoses]]\nid = "inserted"\nwhen = "none"\ncause = "unwatched"\nsay = "A new rule."\n\n'
    edited = text[:second_rule] + rule + text[second_rule:]
    edited = edited.replace(first_hint, first_hint + '\n    {id = "inserted", say = "A new hint."},', 1)
    copy = write_course(tmp_path, {"course": course.MANIFEST.read_text(encoding="utf-8"), lesson.id: edited})
    for other in COURSE.lessons[1:]:
        write_course(tmp_path, {other.id: other.manifest.read_text(encoding="utf-8")})
    before, after = dict(course.course_texts(COURSE)), dict(course.course_texts(course.load_manifest(copy)))
    assert sorted(set(after) - set(before)) == [f"{lesson.id}.{exercise.id}.diagnosis.inserted",
                                                f"{lesson.id}.{exercise.id}.hint.inserted"]
    assert {key: after[key] for key in before} == before, "a key now names another text"


def test_is_the_course_loaded_once_and_from_its_manifest():
    assert course.load() is course.load()
    assert course.load().manifest == course.MANIFEST
    assert course.load_manifest(course.MANIFEST) == course.load()
    assert [l.folder for l in COURSE.lessons] == [course.LESSONS_DIR / l.id for l in COURSE.lessons]


def test_is_a_missing_manifest_one_line(tmp_path):
    with pytest.raises(course.CourseError, match="no such file"):
        course.load_manifest(tmp_path / "nowhere.toml")


def test_do_the_points_match_the_solutions_notebooks():
    course_schema.check_points(COURSE)


def test_are_points_that_differ_from_the_notebook_one_line(tmp_path):
    lesson, exercise = COURSE.lessons[0], COURSE.lessons[0].exercises[0]
    entry = f'id = "{exercise.id}"\nfunction = "{exercise.function}"\npoints = {exercise.points}'
    texts = {"course": course.MANIFEST.read_text(), **{l.id: l.manifest.read_text() for l in COURSE.lessons}}
    assert entry in texts[lesson.id]
    texts[lesson.id] = texts[lesson.id].replace(entry, entry.replace(f"points = {exercise.points}", "points = 7"))
    broken = course.load_manifest(write_course(tmp_path, texts))  # the notebooks are not read on load
    with pytest.raises(course.CourseError) as raised:
        course_schema.check_points(broken)
    message = str(raised.value)
    named = tmp_path / "lessons" / lesson.id / course.LESSON_FILE
    assert message.startswith(f"{named}: lesson {lesson.id} exercise {exercise.id}, key 'points'"), message
    assert f"check_{exercise.id}" in message and "\n" not in message
