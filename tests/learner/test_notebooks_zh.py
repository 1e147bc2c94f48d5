"""Is every Chinese notebook its English twin with the words translated, and nothing else changed?

The checker and nbgrader read a notebook's code cells and nbgrader metadata, never its prose: so a
Chinese notebook (lessonN.zh_CN.ipynb beside lessonN.ipynb, in solutions/ and in lessons/) must have
the same cells in the same order, the same cell ids and metadata (grade ids, points, locks, tags,
nbgrader's checksums) and code cells that differ only in their comments, compared token by token
without the comments; the cells nbgrader checksums (locked and test cells) are not translated at all.
An answer cell keeps its English docstring and says the same specification in Chinese comments under
it (its checksum is the one thing of its metadata that changes). A lesson's title has one source: the
notebook's heading is the course's title (its lesson.toml and zh_CN.toml) as docs.lesson.title says it.
"""
from __future__ import annotations

import io
import json
import re
import tokenize

import pytest

from gradtutor import messages
from gradtutor.course import manifest as course
from tests.support import REPO

pytestmark = pytest.mark.unit

LESSONS = [pytest.param(lesson, id=lesson.id) for lesson in course.load().lessons]
CJK = re.compile(r"[\u4e00-\u9fff]")
TRANSLATIONS = [lang for lang in messages.LANGUAGES if lang != messages.DEFAULT]


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))


def code_without_comments(source: str) -> list[tuple[int, str]]:
    """The code's tokens (type, text) without comments and line-break tokens: what the comments cannot change."""
    skipped = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    lines = "\n".join("# " + line if line.lstrip().startswith(("%", "!")) else line  # IPython magics
                      for line in source.splitlines()) + "\n"
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(lines).readline) if t.type not in skipped]


def test_does_the_comparison_see_code_changes_but_not_comment_changes():
    english = "x = tf.constant(1.0)  # a constant\n# YOUR CODE HERE\nprint('hi')\n"
    assert code_without_comments(english) == code_without_comments(english.replace("# a constant", "# 常量"))
    assert code_without_comments(english) != code_without_comments(english.replace("1.0", "2.0"))
    assert code_without_comments(english) != code_without_comments(english.replace("'hi'", "'你好'"))


def _code_lines(source: str) -> int:
    return sum(1 for line in source.splitlines() if not line.lstrip().startswith("#"))


def _without_answer_checksum(metadata: dict, grading: dict) -> dict:
    """An answer cell's metadata without nbgrader's checksum: its Chinese comments (the exercise's specification)
    change the checksum, which nbgrader compares only for grade and locked cells (those stay identical, below)."""
    if not grading.get("solution") or grading.get("grade") or grading.get("locked"):
        return metadata
    return {**metadata, "nbgrader": {k: v for k, v in metadata.get("nbgrader", {}).items() if k != "checksum"}}


@pytest.mark.parametrize("lang", TRANSLATIONS)
@pytest.mark.parametrize("kind", ["solutions", "lessons"])
@pytest.mark.parametrize("lesson", LESSONS)
def test_is_the_translated_notebook_the_english_one_in_other_words(lesson, kind, lang):
    english_path = REPO / kind / lesson.id / lesson.notebook
    twin_path = REPO / kind / lesson.id / lesson.notebook_name(lang)
    assert twin_path.is_file(), f"{twin_path} is missing: every lesson has a notebook in every language"
    english, twin = _cells(english_path), _cells(twin_path)
    assert twin["metadata"] == english["metadata"] and twin["nbformat"] == english["nbformat"]
    assert [c["cell_type"] for c in twin["cells"]] == [c["cell_type"] for c in english["cells"]], twin_path
    translated = 0
    for number, (ours, theirs) in enumerate(zip(twin["cells"], english["cells"]), start=1):
        where = f"{twin_path.name} cell {number} ({theirs.get('id')})"
        assert ours.get("id") == theirs.get("id"), where
        ours_text, theirs_text = "".join(ours["source"]), "".join(theirs["source"])
        grading = theirs["metadata"].get("nbgrader", {})
        assert _without_answer_checksum(ours["metadata"], grading) == _without_answer_checksum(theirs["metadata"], grading), \
            f"{where}: its metadata (nbgrader's ids and points) differ"
        if grading.get("locked") or grading.get("grade") and not grading.get("solution"):
            # a locked or test cell is checksummed by nbgrader: byte-identical, so a course in one language
            # grades a submission in the other, and a student who edited one is caught in both
            assert ours_text == theirs_text, f"{where}: nbgrader's locked and test cells are not translated"
        if theirs["cell_type"] == "code":
            assert code_without_comments(ours_text) == code_without_comments(theirs_text), \
                f"{where}: the code differs from the English (only comments may)"
            assert _code_lines(ours_text) == _code_lines(theirs_text), f"{where}: lines of code added or removed"
        elif CJK.search(theirs_text) is None and CJK.search(ours_text):
            translated += 1
    prose = sum(1 for c in english["cells"] if c["cell_type"] == "markdown" and "".join(c["source"]).strip())
    assert translated >= 0.9 * prose, f"{twin_path}: only {translated} of {prose} text cells are in Chinese"


@pytest.mark.parametrize("lesson", LESSONS)
def test_does_every_answer_cell_give_its_specification_in_chinese_too(lesson):
    for kind in ("solutions", "lessons"):
        cells = _cells(REPO / kind / lesson.id / lesson.notebook_name("zh_CN"))["cells"]
        for exercise in lesson.exercises:
            source = next("".join(c["source"]) for c in cells  # the answer cell: nbgrader's grade id is the exercise's
                          if c["metadata"].get("nbgrader", {}).get("grade_id") == exercise.id)
            after_docstring = source.split('"""', 2)[2]
            comments = [line for line in after_docstring.splitlines() if line.strip().startswith("# ")]
            assert sum(bool(CJK.search(line)) for line in comments) >= 2, (kind, exercise.id, source)


@pytest.mark.parametrize("lang", messages.LANGUAGES)
@pytest.mark.parametrize("lesson", LESSONS)
def test_is_the_notebook_heading_the_course_title(lesson, lang):
    for kind in ("solutions", "lessons"):
        first = "".join(_cells(REPO / kind / lesson.id / lesson.notebook_name(lang))["cells"][0]["source"])
        title = messages.course_text(f"{lesson.id}.title", lesson.title, lang)
        expected = "# " + messages.say("docs.lesson.title", lang, number=lesson.number, title=title)
        assert first.splitlines()[0] == expected, (kind, lang)
        if lang != messages.DEFAULT:  # a Chinese dash is "——", never a lone "—" between spaces
            headings = [line for cell in _cells(REPO / kind / lesson.id / lesson.notebook_name(lang))["cells"]
                        if cell["cell_type"] == "markdown" for line in "".join(cell["source"]).splitlines()
                        if line.startswith("#")]
            assert not [line for line in headings if " — " in line], (kind, headings)
