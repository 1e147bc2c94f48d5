"""Is the README's table of lessons the one the manifest makes (gradtutor.dev.readme)?

`gradtutor dev new-lesson` remakes it, so a new lesson needs no edit to the README.
"""
from __future__ import annotations

import pytest

from gradtutor.course import manifest as course
from gradtutor.dev import readme
from tests.support import REPO

pytestmark = pytest.mark.unit


def test_is_the_readme_table_made_from_the_manifest():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert text.count(readme.BEGIN) == 1 and text.count(readme.END) == 1
    assert readme.with_table(text, course.load()) == text, "remake it: python -m gradtutor.dev.readme"


def test_does_the_table_follow_the_manifest():
    the_course = course.load()
    table = readme.lessons_table(the_course)
    assert table.count("\n") == 2 + len(the_course.lessons)
    for lesson in the_course.lessons:
        assert f"| {lesson.number} `{lesson.slug}` | {lesson.summary} |" in table
    shorter = course.Course(the_course.title, the_course.summary, the_course.lessons[:-1])
    text = (REPO / "README.md").read_text(encoding="utf-8")
    made = readme.with_table(text, shorter)
    assert the_course.lessons[-1].slug not in made.split(readme.BEGIN)[1].split(readme.END)[0]
    assert readme.with_table("no table here", the_course) is None
