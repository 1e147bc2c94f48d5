"""Does the guide's symptom table send each cause to the lesson that teaches it?

"Why is my gradient None?" opens with a table: symptom, cause, fix, lesson. A row
whose lesson column is "—" leaves the reader with no exercise for that cause, so
only the causes no lesson teaches may have one, and each link must reach a lesson
of the course.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradtutor import course

pytestmark = pytest.mark.unit

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "why-is-my-gradient-none.md"
# Sections of the guide that no lesson teaches (an API misuse a single line fixes), and why.
UNTAUGHT = {"tf-gradients"}  # graph-only API: the fix is the tape itself, which every lesson teaches


def _rows() -> list[tuple[str, str]]:
    """(cause anchor, lesson column) of every row of the symptom table."""
    text = GUIDE.read_text(encoding="utf-8")
    table = text.split("| symptom | cause | fix | lesson |", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.strip().splitlines()[1:]:  # below the |---| line
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        anchor = re.search(r"\]\(#([\w-]+)\)", cells[1])
        assert anchor, f"a row of the guide's table has no link to its section: {line}"
        rows.append((anchor.group(1), cells[-1]))
    return rows


def test_every_taught_cause_links_to_its_lesson():
    rows = _rows()
    assert len(rows) >= 20, rows
    untaught = sorted({anchor for anchor, lesson in rows if lesson == "—"})
    assert set(untaught) <= UNTAUGHT, f"rows with no lesson: {untaught}"


def test_every_lesson_link_reaches_a_lesson_of_the_course():
    lessons = {lesson.id for lesson in course.load().lessons}
    linked = set()
    for anchor, column in _rows():
        for target in re.findall(r"\]\(lessons/(\w+)\.md(?:#[\w-]+)?\)", column):
            assert target in lessons, f"#{anchor} links to {target}, not a lesson of gradtutor/course.toml"
            linked.add(target)
        assert column == "—" or re.findall(r"\]\(lessons/", column), f"#{anchor}: {column!r} is not a lesson link"
    assert linked == lessons, f"lessons the table never names: {sorted(lessons - linked)}"
