"""Does `gradtutor solution`, pasted into the answer cell, pass `gradtutor check` — piped and in a narrow terminal?"""
from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pytest

from gradtutor.course import manifest as course
from tests.support import REPO
from tests.support.cli import run_cli

pytestmark = pytest.mark.tf

COURSE = course.load()
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _drain(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # the child has closed its terminal
        return b""


def _in_terminal(*args: str, columns: int) -> str:
    """The command's output as a terminal of `columns` columns shows it (colour codes removed)."""
    main, child = pty.openpty()
    env = dict(os.environ, COLUMNS=str(columns), LINES="50", TERM="xterm")
    with subprocess.Popen([sys.executable, "-m", "gradtutor", *args], cwd=REPO, env=env, stdin=child, stdout=child,
                          stderr=child, close_fds=True) as process:
        os.close(child)
        output = b"".join(iter(lambda: _drain(main), b""))
        process.wait(timeout=120)
    os.close(main)
    return ANSI.sub("", output.decode()).replace("\r\n", "\n")


@pytest.mark.parametrize("form", ["piped", "terminal-60"])
def test_does_every_pasted_solution_pass(grade, form):
    failures = []
    for lesson in COURSE.lessons:
        for exercise in lesson.exercises:
            args = ("solution", lesson.id, exercise.id)
            if form == "piped":
                done = run_cli(*args, env={"COLUMNS": "60"})
                assert done.returncode == 0, done.stderr
                code = done.stdout
            else:
                code = _in_terminal(*args, columns=60)
            result = grade(lesson.id, exercise.id, code)
            if result.status != "pass":
                failures.append(f"{lesson.id} {exercise.id}: {result.status} {result.message.splitlines()[0]}")
    assert not failures, failures
