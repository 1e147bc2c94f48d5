"""Does every kind of outcome get its own state and a one-line message naming the function?"""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from gradtutor import course

LESSON = course.load().lesson("lesson2")
FIRST = LESSON.exercises[0]


def _code(body: str) -> str:
    return f"def {FIRST.function}(*args):\n" + "".join(f"    {line}\n" for line in body.splitlines())


def test_is_not_implemented_not_attempted(grade):
    result = grade("lesson2", FIRST.id, _code("raise NotImplementedError()"))
    assert result.status == "not_attempted" and result.points == 0


def test_does_an_error_name_the_learners_line(grade):
    result = grade("lesson2", FIRST.id, _code("x = 1\nreturn undefined_name"))
    assert result.status == "error"
    assert "raised NameError" in result.message and "line 7" in result.message and "return undefined_name" in result.message
    assert "\n" not in result.message


def test_does_a_hang_time_out_and_the_checker_survive(checker, grade):
    saved = checker.timeout
    checker.timeout = 2
    try:
        started = time.monotonic()
        result = grade("lesson2", FIRST.id, _code("while True:\n    pass"))
        assert result.status == "timeout" and "2 s" in result.message
        assert time.monotonic() - started < 2 + 5
    finally:
        checker.timeout = saved
    assert grade("lesson2", FIRST.id, _code("raise NotImplementedError()")).status == "not_attempted"


def test_is_ending_the_process_an_error_not_a_crash(grade):
    result = grade("lesson2", FIRST.id, "import os\n" + _code("os._exit(0)"))
    assert result.status == "error" and "ended the process" in result.message
    result = grade("lesson2", FIRST.id, "import sys\n" + _code("sys.exit(0)"))
    assert result.status == "error" and "SystemExit" in result.message


def test_is_printed_output_kept_but_never_a_verdict(grade):
    result = grade("lesson2", FIRST.id, _code("print('PASS')\nreturn None"))
    assert result.status == "fail" and "PASS" in result.output


def test_is_a_missing_function_bad_input(checker, tmp_path):
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    result = checker.check_file(LESSON, path)
    assert result.exit_code == 2
    assert all(e.status == "error" and "is not defined in empty.py" in e.message for e in result.exercises)


def test_is_top_level_work_in_cells_skipped(grade):
    # A training loop at top level must not run: only definitions are loaded.
    result = grade("lesson2", FIRST.id, "while True:\n    pass\n\n" + _code("raise NotImplementedError()"))
    assert result.status == "not_attempted"


def test_does_the_parent_stay_free_of_tensorflow():
    code = ("import sys; from gradtutor import cli, engine, report, notebook, compare, diagnose, workspace, watch; "
            "print('tensorflow' in sys.modules, 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_are_solution_verdicts_the_same_on_a_second_check(checker):
    first = checker.check_file(LESSON, LESSON.source_notebook())
    second = checker.check_file(LESSON, LESSON.source_notebook())
    assert [e.to_json() for e in first.exercises] == [e.to_json() for e in second.exercises]


@pytest.mark.parametrize("seeds", ["visible", "hidden"])
def test_can_seed_sets_be_chosen(checker, seeds):
    result = checker.check_file(LESSON, LESSON.source_notebook(), [FIRST], seeds)
    assert result.exercises[0].status == "pass" and "2 inputs" in result.exercises[0].message
