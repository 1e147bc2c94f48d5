"""One set of defaults: the CLI, `classroom init` and the repository's nbgrader_config.py all take theirs."""
from __future__ import annotations

from pathlib import Path

import pytest

from gradtutor import defaults

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]


def _execute_timeout(config_text: str):
    from traitlets.config import Config

    config = Config()
    exec(compile(config_text, "nbgrader_config.py", "exec"), {"get_config": lambda: config})
    return config.Execute.timeout


def test_nbgrader_cell_timeout_is_the_same_in_the_repository_and_a_new_course(tmp_path):
    from gradtutor.classroom import init_course

    init_course(tmp_path / "course")
    written = (tmp_path / "course" / "nbgrader_config.py").read_text()
    assert _execute_timeout(written) == defaults.NBGRADER_CELL_TIMEOUT
    assert _execute_timeout((REPO / "nbgrader_config.py").read_text()) == defaults.NBGRADER_CELL_TIMEOUT


def test_the_command_line_defaults_are_these():
    from gradtutor.cli import build_parser

    parser = build_parser()
    check = parser.parse_args(["check", "lesson1"])
    assert (check.timeout, check.memory_mb) == (defaults.EXERCISE_TIMEOUT, defaults.MEMORY_MB)
    grade = parser.parse_args(["grade", "course", "lesson1"])
    assert grade.timeout == defaults.SUBMISSION_TIMEOUT


def test_grading_waits_for_sqlite_as_long_as_the_default():
    from gradtutor.classroom.grading.nbgrader_glue import busy_url

    assert busy_url("sqlite:///gradebook.db") == f"sqlite:///gradebook.db?timeout={defaults.SQLITE_BUSY_TIMEOUT}"
