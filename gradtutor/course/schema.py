"""What a valid course.toml and lesson.toml are, checked when read, and the points against the notebooks.

The manifest (course.toml and each lesson's lesson.toml) is edited by hand, and a mistake in it (a
misspelt key, a `when` no symptom has, a regular expression that does not compile) would otherwise
surface much later as a rule that silently never fires or a KeyError deep in a check. So `validate`
runs on every load and raises one CourseError whose one line names the file (a lesson's own
lesson.toml), the lesson and the key, and says what to do.

The points check reads the solutions notebooks, so it is not part of `validate`:
a learner's sandboxed kernel (nbgrader grading) imports the course but may not
read solutions/. `gradtutor dev check` and the tests run it instead.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

from gradtutor.errors import CourseError
from gradtutor.payloads import RunFacts
from gradtutor.protocol import Cause, Symptom

FORMAT_VERSION = 2  # bump when a key changes meaning; `validate` then refuses older manifests (2: one folder per lesson)
WHENS = tuple(s.value for s in Symptom if s is not Symptom.TINY) + ("any",)  # tiny: explain's only
CAUSES = frozenset(c.value for c in Cause)
FACTS = frozenset(RunFacts.__annotations__)
REGEX_KEYS = ("source_has", "source_lacks", "error_has")

# key -> (type, required). Lists are checked item by item against _ITEMS.
TOP = {"format_version": (int, True), "course": (dict, True), "lessons": (list, True)}
COURSE = {"title": (str, True), "summary": (str, False)}
# A lesson's id is its folder's name and its number its place in course.toml's `lessons`.
LESSON = {"slug": (str, True), "title": (str, True), "notebook": (str, True), "summary": (str, False),
          "exercises": (list, True)}
EXERCISE = {"id": (str, True), "function": (str, True), "points": (int, True), "hints": (list, False),
            "diagnoses": (list, False), "requires": (list, False)}
HINT = {"id": (str, True), "say": (str, True)}  # the id keys its translations: inserting a hint moves no other
# What an exercise's text may require of how the answer is computed -> the cause of an answer that
# gets the right values another way (gradtutor.checking.requirements.unmet_requirement reads the run's facts).
REQUIREMENTS = {"tape": "no-tape", "numpy": "not-numpy", "one-jacobian": "not-one-jacobian",
                "custom-gradient": "no-custom-gradient",
                "forward-mode": "not-forward-mode", "one-pass": "not-one-pass",
                "add-weight-in-build": "weight-not-in-build"}
DIAGNOSIS = {"id": (str, True), "when": (str, True), "say": (str, True), "cause": (str, True), "element": (int, False),
             "fact": (str, False), **{key: (str, False) for key in REGEX_KEYS}}
_ITEMS = {"lessons": str, "exercises": dict, "diagnoses": dict, "hints": dict, "requires": str}
_TYPE_NAMES = {int: "an integer", str: "a string", dict: "a table", list: "a list"}

# The lesson id names its folder and its reference module (gradtutor.course.references.<id>);
# exercise ids are nbgrader grade_ids.
LESSON_ID = (r"[a-z][a-z0-9_]*", "lowercase letters, digits and _, starting with a letter")
PATTERNS = {
    ("lesson", "slug"): (r"[a-z][a-z0-9]*(-[a-z0-9]+)*", "lowercase words joined by -, starting with a letter"),
    ("lesson", "notebook"): (r"[\w.-]+\.ipynb", "a file name ending in .ipynb"),
    ("exercise", "id"): (r"[a-z][a-z0-9_]*", "lowercase letters, digits and _, starting with a letter"),
    ("exercise", "function"): (r"[A-Za-z_]\w*", "a Python function name"),
    ("hint", "id"): (r"[a-z][a-z0-9]*(-[a-z0-9]+)*", "lowercase words joined by -, starting with a letter"),
}


class _Where:
    """Where in the manifest a problem is, for the one line that reports it."""

    def __init__(self, manifest: Path, place: str):
        self.manifest, self.place = manifest, place

    def error(self, key: str | None, problem: str, todo: str) -> CourseError:
        at = f"{self.place}, key '{key}'" if key else self.place
        return CourseError(f"{self.manifest}: {at}: {problem} — {todo}")


def validate(data: dict, manifest: Path) -> None:
    """Raise CourseError for the first problem in a parsed manifest; return quietly when it is sound."""
    top = _Where(manifest, "top level")
    if "format_version" not in data:
        raise top.error("format_version", "is missing", f"add format_version = {FORMAT_VERSION} before [course]")
    _table({"format_version": data["format_version"]}, {"format_version": TOP["format_version"]}, top)
    if data["format_version"] != FORMAT_VERSION:  # before the other keys: their meaning is the version's
        raise top.error("format_version", f"is {data['format_version']}, but this gradtutor reads format "
                        f"{FORMAT_VERSION}", f"set format_version = {FORMAT_VERSION} (or upgrade gradtutor)")
    _table(data, TOP, top)
    _table(data["course"], COURSE, _Where(manifest, "[course]"))
    if not data["lessons"]:
        raise top.error("lessons", "the course has no lessons", "add a lesson (`gradtutor dev new-lesson`)")
    seen: set[str] = set()
    for lesson_id in data["lessons"]:
        pattern, description = LESSON_ID
        if not re.fullmatch(pattern, lesson_id):
            raise top.error("lessons", f"{lesson_id!r} is not a valid lesson id", f"use {description}")
        if lesson_id in seen:
            raise top.error("lessons", f"{lesson_id!r} is listed twice", "list every lesson once")
        seen.add(lesson_id)


def no_lesson_file(manifest: Path, lesson_id: str, lesson_path: Path) -> CourseError:
    return _Where(manifest, "top level").error("lessons", f"lists {lesson_id!r}, but {lesson_path} is missing",
                                               "add the lesson (`gradtutor dev new-lesson`) or take it off the list")


def validate_lesson(lesson: dict, path: Path, lesson_id: str) -> None:
    """Raise CourseError for the first problem in a parsed lesson.toml (its id is its folder's name)."""
    where = _Where(path, f"lesson {lesson_id}")
    _table(lesson, LESSON, where)
    _patterns(lesson, "lesson", where)
    _exercises(dict(lesson, id=lesson_id), path)


def validate_lessons(lessons: dict[str, dict], manifest: Path) -> None:
    """What no lesson.toml can check alone: `gradtutor check X` looks X up as an id or a slug, so one meaning only."""
    seen: dict[tuple, str] = {}
    for lesson_id, lesson in lessons.items():
        where = _Where(manifest.parent / "lessons" / lesson_id / "lesson.toml", f"lesson {lesson_id}")
        _unique(seen, ("slug", lesson["slug"]), f"lesson {lesson_id}", where, "lesson")
        if lesson["slug"] in set(lessons) - {lesson_id}:
            raise where.error("slug", f"{lesson['slug']!r} is another lesson's id", "choose another slug")


def _exercises(lesson: dict, manifest: Path) -> None:
    if not lesson["exercises"]:
        raise _Where(manifest, f"lesson {lesson['id']}").error(
            "exercises", "the lesson has no exercises", "add a [[lessons.exercises]] entry")
    seen: dict[tuple, str] = {}
    place = f"lesson {lesson['id']} "
    for position, exercise, where in _entries(lesson["exercises"], EXERCISE, "exercise", place, manifest):
        if exercise["points"] < 1:
            raise where.error("points", f"is {exercise['points']}", "give every exercise at least 1 point")
        for key in ("id", "function"):
            _unique(seen, (key, exercise[key]), f"exercise entry {position}", where, f"exercise of {lesson['id']}")
        for need in exercise.get("requires", ()):
            if need not in REQUIREMENTS:
                raise where.error("requires", f"names {need!r}", f"use one of: {', '.join(REQUIREMENTS)}")
        hints: set = set()
        for number, hint in enumerate(exercise.get("hints", ()), start=1):
            hint_where = _Where(manifest, f"{where.place} hint {hint.get('id', number)}")
            _table(hint, HINT, hint_where)
            _patterns(hint, "hint", hint_where)
            if hint["id"] in hints:  # the id keys the hint's translations: two hints may not share one
                raise hint_where.error("id", f"{hint['id']!r} is used by another hint of this exercise",
                                       "give each hint its own id (its translations are keyed by it)")
            hints.add(hint["id"])
        rules: set = set()
        for number, rule in enumerate(exercise.get("diagnoses", ()), start=1):
            rule_where = _Where(manifest, f"{where.place} diagnosis {rule.get('id', number)}")
            _diagnosis(rule, rule_where)
            if rule["id"] in rules:  # the id keys the rule's translations: two rules may not share one
                raise rule_where.error("id", f"{rule['id']!r} is used by another rule of this exercise",
                                       "give each rule its own id (its translations are keyed by it)")
            rules.add(rule["id"])


def _entries(tables: list, schema: dict, level: str, place: str, manifest: Path):
    """(position, table, where) for each table of a list, once its keys, types and names are checked."""
    for position, table in enumerate(tables, start=1):
        name = table.get("id") if isinstance(table.get("id"), str) else f"entry {position}"
        where = _Where(manifest, f"{place}{level} {name}")
        _table(table, schema, where)
        _patterns(table, level, where)
        yield position, table, where


def _diagnosis(rule: dict, where: _Where) -> None:
    _table(rule, DIAGNOSIS, where)
    if rule["when"] not in WHENS:
        raise where.error("when", f"{rule['when']!r} is not a symptom", f"use one of: {', '.join(WHENS)}")
    if rule["cause"] not in CAUSES:
        raise where.error("cause", f"{rule['cause']!r} is not a cause id", "use one of gradtutor.protocol.Cause's values")
    if "fact" in rule and rule["fact"] not in FACTS:
        raise where.error("fact", f"{rule['fact']!r} is not a run-time fact", f"use one of: {', '.join(sorted(FACTS))}")
    for key in REGEX_KEYS:
        if key in rule:
            try:
                re.compile(rule[key])
            except re.error as exc:
                raise where.error(key, f"{rule[key]!r} is not a regular expression ({exc})",
                                  "fix the pattern (in TOML, write it in '…' so backslashes stay as they are)") from None


def _table(table: dict, schema: dict, where: _Where) -> None:
    unknown = sorted(set(table) - set(schema))
    if unknown:
        raise where.error(unknown[0], "is not a key this table may have",
                          f"remove it or fix its spelling (the keys are: {', '.join(schema)})")
    for key, (kind, required) in schema.items():
        if key not in table:
            if required:
                raise where.error(key, "is missing", f"add {key} = … ({_TYPE_NAMES[kind]})")
            continue
        value = table[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise where.error(key, f"is {type(value).__name__} {value!r}", f"make it {_TYPE_NAMES[kind]}")
        item = _ITEMS.get(key)
        if item and not all(isinstance(v, item) for v in value):
            raise where.error(key, "has an item of the wrong type", f"make every item {_TYPE_NAMES[item]}")


def _patterns(table: dict, level: str, where: _Where) -> None:
    for (of, key), (pattern, description) in PATTERNS.items():
        if of == level and not re.fullmatch(pattern, table[key]):
            raise where.error(key, f"{table[key]!r} is not valid", f"use {description}")


def _unique(seen: dict, key: tuple, entry: str, where: _Where, what: str) -> None:
    """key is (field, value); entry names this table by its place, as ids may repeat."""
    field, value = key
    if key in seen:
        raise where.error(field, f"{value!r} is already used by {seen[key]}", f"give every {what} its own {field}")
    seen[key] = entry


# --------------------------------------------------------------------------- points vs. notebooks


def notebook_points(path: Path) -> dict[str, int]:
    """grade_id -> points of every graded cell of an nbgrader notebook (plain JSON: nbgrader is optional)."""
    try:
        cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CourseError(f"{path}: cannot read the notebook ({exc.__class__.__name__}) — restore it from git") from None
    points = {}
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and "grade_id" in meta:
            points[meta["grade_id"]] = meta.get("points")
    return points


def point_problems(lessons) -> Iterator[str]:
    """One line per exercise whose points differ from its check_<id> cell in the solutions notebook."""
    for lesson in lessons:
        notebook = lesson.source_notebook()
        try:
            graded = notebook_points(notebook)
        except CourseError as exc:
            yield str(exc)
            continue
        for exercise in lesson.exercises:
            cell = f"check_{exercise.id}"
            where = _Where(lesson.manifest, f"lesson {lesson.id} exercise {exercise.id}")
            if cell not in graded:
                yield str(where.error(None, f"{notebook} has no graded test cell {cell}",
                                      f"add a locked nbgrader test cell with grade_id {cell} after the answer cell"))
            elif graded[cell] != exercise.points:
                yield str(where.error("points", f"is {exercise.points}, but {cell} in {notebook} gives "
                                      f"{graded[cell]}", "make the manifest and the notebook agree"))


def check_points(course) -> None:
    """Raise CourseError for the first exercise whose manifest points differ from its notebook's."""
    for problem in point_problems(course.lessons):
        raise CourseError(problem)
