"""Does the guide's symptom table send each cause to the lesson that teaches it?

"Why is my gradient None?" opens with a table: symptom, cause, fix, lesson. A row
whose lesson column is "—" leaves the reader with no exercise for that cause, so
only the causes no lesson teaches may have one, and each link must reach a lesson
of the course. The Chinese guide's table is held to the same checks, and must have
the English table's rows (cause, lesson) in the same order, as must its table of
cause ids.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradtutor.course import manifest as course

pytestmark = pytest.mark.unit

DOCS = Path(__file__).resolve().parents[2] / "docs"
# Each guide, and the header line of its symptom table (symptom, cause, fix, lesson) and of its cause-id table.
GUIDES = {
    "en": (DOCS / "why-is-my-gradient-none.md", "| symptom | cause | fix | lesson |", "| cause id | what happened |"),
    "zh": (DOCS / "why-is-my-gradient-none.zh.md", "| 症状 | 原因 | 解决办法 | 课程 |", "| 原因编号 | 发生了什么 |"),
}
TRANSLATIONS = [lang for lang in GUIDES if lang != "en"]
# Sections of the guide that no lesson teaches (an API misuse a single line fixes), and why.
UNTAUGHT = {"tf-gradients"}  # graph-only API: the fix is the tape itself, which every lesson teaches


def _table(lang: str, header: str) -> list[list[str]]:
    """The cells of every row below `header` (the table it opens), in the guide of `lang`."""
    text = GUIDES[lang][0].read_text(encoding="utf-8")
    assert header in text, f"{lang}: no table with the header {header!r}"
    table = text.split(header, 1)[1].split("\n\n", 1)[0]
    return [[cell.strip() for cell in line.strip().strip("|").split(" | ")]
            for line in table.strip().splitlines()[1:]]  # below the |---| line


def _rows(lang: str) -> list[tuple[str, str]]:
    """(cause anchor, lesson column) of every row of the symptom table."""
    rows = []
    for cells in _table(lang, GUIDES[lang][1]):
        anchor = re.search(r"\]\(#([\w-]+)\)", cells[1])
        assert anchor, f"a row of the {lang} guide's table has no link to its section: {cells}"
        rows.append((anchor.group(1), cells[-1]))
    return rows


def _cause_ids(lang: str) -> list[str]:
    """The first cell (`[`id`](#anchor)`) of every row of the cause-id table."""
    return [cells[0] for cells in _table(lang, GUIDES[lang][2])]


@pytest.mark.parametrize("lang", GUIDES)
def test_every_taught_cause_links_to_its_lesson(lang):
    rows = _rows(lang)
    assert len(rows) >= 20, rows
    untaught = sorted({anchor for anchor, lesson in rows if lesson == "—"})
    assert set(untaught) <= UNTAUGHT, f"{lang}: rows with no lesson: {untaught}"


@pytest.mark.parametrize("lang", GUIDES)
def test_every_lesson_link_reaches_a_lesson_of_the_course(lang):
    lessons = {lesson.id for lesson in course.load().lessons}
    linked = set()
    for anchor, column in _rows(lang):
        for target in re.findall(r"\]\(lessons/(\w+)\.md(?:#[\w-]+)?\)", column):
            assert target in lessons, f"{lang} #{anchor} links to {target}, not a lesson of gradtutor/course/course.toml"
            linked.add(target)
        assert column == "—" or re.findall(r"\]\(lessons/", column), f"{lang} #{anchor}: {column!r} is not a lesson link"
    assert linked == lessons, f"{lang}: lessons the table never names: {sorted(lessons - linked)}"


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translated_table_has_every_row(lang):
    """Does the translated symptom table have the English rows — same causes, same lessons — in the same order?"""
    assert _rows(lang) == _rows("en")


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translated_cause_ids_are_the_english_ones(lang):
    """Does the translated cause-id table list the same ids, untranslated, linked to the same sections?"""
    english = _cause_ids("en")
    assert len(english) >= 15, english
    assert _cause_ids(lang) == english
