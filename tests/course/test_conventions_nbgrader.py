"""gradtutor.course.conventions agrees with nbgrader itself on every cell of every lesson."""
from __future__ import annotations

import copy

import nbformat
import pytest

from gradtutor.course import conventions
from gradtutor.course import manifest as course

pytestmark = pytest.mark.nbgrader

nbgrader_utils = pytest.importorskip("nbgrader.utils")


def test_the_delimiters_and_stubs_are_nbgraders_defaults():
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    solutions, hidden = ClearSolutions(), ClearHiddenTests()
    assert conventions.SOLUTION_DELIMITERS == (solutions.begin_solution_delimeter, solutions.end_solution_delimeter)
    assert conventions.HIDDEN_TESTS_DELIMITERS == (hidden.begin_test_delimeter, hidden.end_test_delimeter)
    assert conventions.CODE_STUB == solutions.code_stub["python"] and conventions.TEXT_STUB == solutions.text_stub
    assert conventions.SOLUTION_DELIMITERS[0] in conventions.BEGIN_SOLUTION
    assert conventions.HIDDEN_TESTS_DELIMITERS[1] in conventions.END_HIDDEN_TESTS


@pytest.mark.parametrize("lesson", course.load().lessons, ids=lambda lesson: lesson.id)
def test_every_lesson_cell_reads_and_releases_as_nbgrader_does(lesson):
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    source = nbformat.read(lesson.source_notebook(), as_version=4)
    released, _ = ClearHiddenTests().preprocess(*ClearSolutions().preprocess(copy.deepcopy(source), {}))
    assert len(released.cells) == len(source.cells)
    for cell, learner_copy in zip(source.cells, released.cells):
        assert conventions.release_source(cell) == learner_copy.source
        assert conventions.is_grade(cell) == bool(nbgrader_utils.is_grade(cell))
        assert conventions.is_solution(cell) == bool(nbgrader_utils.is_solution(cell))
        assert conventions.is_locked(cell) == bool(nbgrader_utils.is_locked(cell))
    committed = nbformat.read(lesson.release_notebook(), as_version=4)
    assert [conventions.release_source(c) for c in source.cells] == [c.source for c in committed.cells]
