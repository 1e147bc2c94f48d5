"""A course with nbgrader's exchange in a scratch root, and a student who fetches and submits through it.

Shared by tests/classroom/test_classroom_serve.py and benchmarks/bench_serve.py.
"""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import nbformat

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from tests.support.classroom import BIN, make_course, tool_env

LESSON = "lesson1"


def nbgrader(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run([str(BIN / "nbgrader"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def student_env(home: Path) -> dict:
    return dict(tool_env(), JUPYTER_DATA_DIR=str(home / "data"), JUPYTER_CONFIG_DIR=str(home / "config"))


def submit_and_wait(home: Path, env: dict, feedback: Path, serve) -> tuple[Path, float, float]:
    """`nbgrader submit` as the student, watching for its page meanwhile: (page, seconds to it, seconds submit took).

    Both from the moment `nbgrader submit` starts; the page may well be there before the command returns.
    """
    before = {p.name for p in feedback.glob("*.html")} if feedback.is_dir() else set()
    started = time.monotonic()
    submit = subprocess.Popen([str(BIN / "nbgrader"), "submit", LESSON, "--student", "alice"], cwd=home, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    page = submitted = None
    while time.monotonic() - started < 120 and (page is None or submitted is None):
        if submitted is None and submit.poll() is not None:
            submitted = time.monotonic() - started
            assert submit.returncode == 0, submit.stdout.read()
        new = {p.name for p in feedback.glob("*.html")} - before if feedback.is_dir() else set()
        if page is None and new:
            assert len(new) == 1, new
            page = (feedback / new.pop(), time.monotonic() - started)
        assert serve.poll() is None, serve.stdout.read() if serve.stdout else serve.returncode
        time.sleep(0.05)
    if page is None or submitted is None:
        submit.kill()
        raise AssertionError(f"no feedback page in {feedback} after 120 s")
    return page[0], page[1], submitted


def make_classroom(root: Path) -> tuple[Path, Path, Path, dict]:
    """A course with its exchange in `root`, lesson1 released and fetched by alice: (course, feedback, home, env)."""
    exchange = root / "exchange"
    exchange.mkdir(mode=0o777)
    folder = make_course(root / "course", [LESSON])
    course_id = re.search(r"course_id = '([^']+)'", (folder / "nbgrader_config.py").read_text()).group(1)
    with (folder / "nbgrader_config.py").open("a") as config:
        config.write(f"\nc.Exchange.root = {str(exchange)!r}\n")
    nbgrader("release_assignment", LESSON, cwd=folder, env=tool_env())
    home = root / "alice"
    home.mkdir()
    (home / "nbgrader_config.py").write_text(f"c = get_config()\nc.Exchange.root = {str(exchange)!r}\n"
                                             f"c.CourseDirectory.course_id = {course_id!r}\n")
    env = student_env(home)
    nbgrader("fetch_assignment", LESSON, "--student", "alice", cwd=home, env=env)
    return folder, exchange / course_id / "feedback", home, env


def with_answers(codes: dict[str, str]) -> str:
    lesson = course.load().lesson(LESSON)
    nb = nbformat.read(lesson.release_notebook(), as_version=4)
    answer_cells = conventions.cells_by_grade_id(nb)
    for exercise, code in codes.items():
        answer_cells[exercise].source = code
    return nbformat.writes(nb)
