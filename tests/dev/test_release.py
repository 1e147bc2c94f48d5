"""Are the committed learner notebooks exactly what nbgrader generates from the solutions?"""
from __future__ import annotations

from pathlib import Path

import pytest

from gradtutor import messages
from gradtutor.course import conventions
from gradtutor.course import manifest as course
from gradtutor.dev import release

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.nbgrader
def test_are_committed_lessons_what_nbgrader_generates(tmp_path):
    written = release.generate(tmp_path)
    assert len(written) == len(course.load().lessons) * len(messages.LANGUAGES)  # every lesson in every language
    for path in written:
        committed = REPO / "lessons" / path.relative_to(tmp_path)
        assert committed.read_text() == path.read_text(), (
            f"{committed} differs from what `make lessons` generates from solutions/ — "
            "edit the solutions notebook, then run `make lessons`")


@pytest.mark.unit
@pytest.mark.parametrize("lang", messages.LANGUAGES)
def test_are_solutions_replaced_in_the_learner_copy(lang):
    for lesson in course.load().lessons:
        text = lesson.release_notebook(lang).read_text()
        assert conventions.BEGIN_SOLUTION not in text and conventions.BEGIN_HIDDEN_TESTS not in text
        assert "raise NotImplementedError()" in text
