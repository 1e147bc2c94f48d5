"""Is there one vocabulary for a verdict, read by the classroom from names, never from English?"""
from __future__ import annotations

import nbformat
import pytest

from gradtutor.errors import CheckFailed
from gradtutor.protocol import Status, failure_for, status_from_exception_name

pytestmark = pytest.mark.unit


def test_does_every_failing_status_have_its_own_exception_class():
    failing = [s for s in Status if s is not Status.PASS]
    classes = {failure_for(s) for s in failing}
    assert len(classes) == len(failing) and all(issubclass(c, CheckFailed) for c in classes)
    assert all(issubclass(c, AssertionError) for c in classes)  # nbgrader scores any exception 0
    for status in failing:
        assert status_from_exception_name(failure_for(status).__name__) is status
        assert status.exception_name == failure_for(status).__name__
    assert status_from_exception_name("NameError") is None


def test_is_display_text_a_function_of_the_status():
    for status in Status:
        shown = status.display
        assert shown.mark and shown.label and shown.style and shown.colour.startswith("#")
    assert Status("not_attempted").display.label == "not attempted" and str(Status.PASS) == "pass"


def _cell_with_error(ename: str, evalue: str):
    cell = nbformat.v4.new_code_cell("check(...)")
    cell.outputs = [nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[])]
    return cell


@pytest.mark.parametrize(("status", "expected"), [
    (Status.FAIL, "fail"), (Status.NOT_ATTEMPTED, "not_attempted"), (Status.ERROR, "error"),
    (Status.TIMEOUT, "error"),
])
def test_does_the_gradebook_read_the_status_from_the_exception_name_alone(status, expected):
    from gradtutor.classroom.grading.gradebook import cell_verdict

    # the words could say anything: the status comes from the class name nbgrader recorded
    for words in ("raised ValueError", "is not attempted yet", "did not finish within 30 s", "fine words"):
        assert cell_verdict(_cell_with_error(failure_for(status).__name__, words)) == (expected, words)


def test_is_a_passing_cell_a_pass_and_a_foreign_exception_an_error():
    from gradtutor.classroom.grading.gradebook import cell_verdict

    assert cell_verdict(nbformat.v4.new_code_cell("check(...)"))[0] == "pass"
    assert cell_verdict(_cell_with_error("NameError", "name 'f' is not defined"))[0] == "error"
