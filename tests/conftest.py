"""Shared fixtures: one warm checker per test process, and helpers to grade code."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
STANDARD_IMPORTS = "import numpy as np\nimport tensorflow as tf\nimport keras\n\n"

os.environ.setdefault("GRADTUTOR_HOME", str(REPO / "test-output" / "gradtutor-home"))
# `gradtutor check` in-process unless a test asks for the warm checker (tests/test_daemon.py starts and stops its own)
os.environ.setdefault("GRADTUTOR_NO_DAEMON", "1")


@pytest.fixture(scope="session")
def checker():
    """A checker whose worker has TensorFlow imported; shared by a whole test process."""
    from gradtutor.checker import Checker

    with Checker(timeout=60) as shared:
        yield shared


@pytest.fixture
def grade(checker, tmp_path):
    """grade(lesson, exercise, code) → ExerciseResult, for code written as a .py file."""
    from gradtutor import course

    def _grade(lesson_id: str, exercise_id: str, code: str, seeds: str = "all"):
        lesson = course.load().lesson(lesson_id)
        exercise = lesson.exercise(exercise_id)
        path = tmp_path / f"{lesson_id}_{exercise_id}.py"
        path.write_text(STANDARD_IMPORTS + code)
        return checker.check_file(lesson, path, [exercise], seeds).exercises[0]

    return _grade


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """The real `gradtutor` command in a subprocess."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "gradtutor", *args], cwd=cwd or REPO, env=full_env,
                          capture_output=True, text=True, timeout=timeout)
