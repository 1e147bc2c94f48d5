"""What a lesson needs besides its lesson.toml, one line per thing missing.

`gradtutor dev check` reports these lines, and the test suite (tests/course/test_course.py) asks that
there are none, so the two agree on what a lesson is: its folder (gradtutor/course/lessons/<id>/)
holds its reference module, its known answers, a test of its claims and a translation of each of
its texts in every language, and solutions/<id>/ holds its notebook in every language.
"""
from __future__ import annotations

from typing import Iterator

from gradtutor import messages
from gradtutor.course import manifest as course

CLAIMS = "test_claims_{id}.py"  # the lesson's own tests; named by the lesson, as pytest needs distinct names
MIN_EXERCISES = MIN_HINTS = 3  # what a finished lesson has: a new lesson's one example exercise is not that yet


def problems(lesson) -> Iterator[str]:
    """One line per file the lesson lacks and per text of it that is not translated from its current English."""
    needed = {course.REFERENCE_FILE: "its seeded inputs and reference answers",
              course.ANSWERS_FILE: "its known answers and the verdict each must get",
              CLAIMS.format(id=lesson.id): "tests of what the lesson says TensorFlow does",
              **{f"{lang}.toml": f"the {lang} of its texts" for lang in _translations()}}
    for name, holds in needed.items():
        if not (lesson.folder / name).is_file():
            yield (f"{lesson.id}: {lesson.folder / name} is missing — it holds {holds} "
                   "(`gradtutor dev new-lesson` writes a working example; docs/authoring.md)")
    for lang in messages.LANGUAGES:
        if not lesson.source_notebook(lang).is_file():
            yield (f"{lesson.id}: {lesson.source_notebook(lang)} is missing — every lesson has a notebook in "
                   "every language (docs/authoring.md)")
    for lang in _translations():
        untranslated = [key for key, english in _texts(lesson) if not _translated(key, english, lang)]
        if untranslated:
            yield (f"{lesson.id}: {len(untranslated)} text(s) have no {lang} translation of their current English "
                   f"({', '.join(untranslated[:3])}) — write them in {lesson.folder / f'{lang}.toml'}")


def unfinished(lesson) -> Iterator[str]:
    """One line per way the lesson falls short of a finished one: fewer exercises or hints than the course's
    lessons have, an exercise no rule diagnoses. `dev check` says these without failing (a new lesson starts
    with one example exercise); the test suite asks for none."""
    if len(lesson.exercises) < MIN_EXERCISES:
        yield f"{lesson.id}: {len(lesson.exercises)} exercise(s); a finished lesson has at least {MIN_EXERCISES}"
    for exercise in lesson.exercises:
        if len(exercise.hints) < MIN_HINTS:
            yield f"{lesson.id} {exercise.id}: a hint ladder has at least {MIN_HINTS} rungs"
        if not exercise.diagnoses:
            yield f"{lesson.id} {exercise.id}: no diagnosis rule words its causes for this exercise"


def _translations() -> list[str]:
    return [lang for lang in messages.LANGUAGES if lang != messages.DEFAULT]


def _texts(lesson) -> list[tuple[str, str]]:
    return course.course_texts(course.Course("", "", (lesson,)))  # no course title or summary: the lesson's own


def _translated(key: str, english: str, lang: str) -> bool:
    entry = messages.course_catalogue(lang).get(key)
    return bool(entry and entry.get("en") == english and entry.get("text", "").strip())
