"""gradtutor.course.conventions: grade ids, metadata and the release form, with nbgrader and without (a learner's install)."""
from __future__ import annotations

import json

import nbformat
import pytest

from gradtutor.course import conventions

pytestmark = pytest.mark.unit

ANSWER = '''def grad(x):
    """Return dy/dx."""
    ### BEGIN SOLUTION
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x ** 3
    return tape.gradient(y, x)
    ### END SOLUTION'''

TEST = '''check("lesson1", "cube", grad, seeds="visible")
### BEGIN HIDDEN TESTS
check("lesson1", "cube", grad, seeds="hidden")
### END HIDDEN TESTS'''


@pytest.fixture(params=["fallback", "nbgrader"])
def helpers(request, monkeypatch):
    """Each test runs on the pure fallback and on nbgrader's own helpers (the dev install has nbgrader)."""
    if request.param == "fallback":
        monkeypatch.setattr(conventions, "_nbgrader_utils", lambda: None)
        return request.param
    try:
        import nbgrader.utils  # noqa: F401 - loaded, as in a grading process: conventions asks nbgrader's helpers
    except ImportError:
        pytest.fail("nbgrader is not installed: `make .venv/.dev` installs it")
    assert conventions._nbgrader_utils() is not None
    return request.param


def notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import gradtutor.quiet"),
                nbformat.v4.new_code_cell(ANSWER, metadata={"nbgrader": conventions.answer_metadata("cube")}),
                nbformat.v4.new_code_cell(TEST, metadata={"nbgrader": conventions.check_metadata("cube", 2)}),
                nbformat.v4.new_markdown_cell("Why?", metadata={"nbgrader": {"grade_id": "why", "solution": True,
                                                                           "grade": False, "locked": False}})]
    return nb


def test_a_test_cell_is_check_and_the_exercise_id():
    assert conventions.check_id("cube") == "check_cube"
    assert conventions.exercise_of("check_cube") == "cube"
    assert conventions.exercise_of("cube") is None and conventions.exercise_of(None) is None


def test_cell_kinds_read_the_same_from_nbformat_nodes_and_plain_json(helpers):
    nb = notebook()
    for form in (nb, json.loads(nbformat.writes(nb))):
        cells = form["cells"]
        setup, answer, test, why = cells
        assert [conventions.is_grade(c) for c in cells] == [False, False, True, False]
        assert [conventions.is_solution(c) for c in cells] == [False, True, False, True]
        assert [conventions.is_locked(c) for c in cells] == [False, False, True, False]
        assert [conventions.is_test(c) for c in cells] == [False, False, True, False]
        assert conventions.grade_id(setup) is None and conventions.grade_id(test) == "check_cube"


def test_grade_cells_and_cells_by_grade_id_keep_the_notebooks_order(helpers):
    nb = notebook()
    assert list(conventions.cells_by_grade_id(nb)) == ["cube", "check_cube", "why"]
    assert list(conventions.grade_cells(nb)) == ["check_cube"]


def test_the_release_form_is_what_nbgrader_makes_of_a_cell(helpers):
    setup, answer, test, why = notebook().cells
    assert conventions.release_source(setup) == "import gradtutor.quiet"
    assert conventions.release_source(answer) == ('def grad(x):\n    """Return dy/dx."""\n'
                                                  "    # YOUR CODE HERE\n    raise NotImplementedError()")
    assert conventions.release_source(test) == 'check("lesson1", "cube", grad, seeds="visible")'
    assert conventions.release_source(why) == "YOUR ANSWER HERE"


def test_solution_markers_come_out_and_an_unclosed_region_does_not_raise():
    solution = conventions.without_solution_markers(ANSWER)
    assert "SOLUTION" not in solution and "tape.watch(x)" in solution
    assert conventions.without_hidden_tests("visible()\n### BEGIN HIDDEN TESTS\nhidden()") == "visible()"
