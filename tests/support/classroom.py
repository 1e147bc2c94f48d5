"""Driving a real nbgrader course: the commands, the gradebook, and the notebooks a class hands in.

Shared by tests/classroom/test_classroom.py (a synthetic class per lesson), tests/cli/test_cli_grade.py,
tests/classroom/test_classroom_layout.py, tests/support/hostile.py (the hostile corpus under nbgrader) and
benchmarks/bench_grading.py.
"""
from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat

from gradtutor.course import conventions
from gradtutor.course import manifest as course
from gradtutor.dev.answers import answers_path
from tests.support import REPO

BIN = Path(sys.executable).parent


# --------------------------------------------------------------------------- running things


def tool_env() -> dict:
    """nbgrader needs `alembic` on PATH; the kernels must be this venv's Python."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("JUPYTER_PLATFORM_DIRS", None)
    return env


def run(args: list[str], cwd: Path, timeout: float = 1200) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=tool_env(), capture_output=True, text=True, timeout=timeout)


def gradtutor(*args: str, cwd: Path, timeout: float = 1200) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "gradtutor", *args], cwd=cwd, timeout=timeout)


def nbgrader(*args: str, cwd: Path, timeout: float = 1200) -> subprocess.CompletedProcess:
    return run([str(BIN / "nbgrader"), *args], cwd=cwd, timeout=timeout)


def make_course(folder: Path, lessons: list[str]) -> Path:
    """`gradtutor classroom init`, then `nbgrader generate_assignment` for each lesson.

    A course of every lesson generates them with one command (an assignment glob, as nbgrader takes one):
    each command starts nbgrader and opens the gradebook again, seconds of CPU on a loaded machine.
    """
    made = gradtutor("classroom", "init", str(folder), cwd=folder.parent)
    assert made.returncode == 0, made.stderr
    every_lesson = len(lessons) > 1 and sorted(p.name for p in (folder / "source").iterdir()) == sorted(lessons)
    for assignment in ["*"] if every_lesson else lessons:
        generated = nbgrader("generate_assignment", assignment, cwd=folder)
        assert generated.returncode == 0, generated.stdout + generated.stderr
    for lesson in lessons:
        assert (folder / "release" / lesson / f"{lesson}.ipynb").is_file(), f"no release of {lesson}"
    return folder


def pristine_source(folder: Path) -> Path:
    return folder / "submitted"


def read_gradebook(folder: Path, lesson: str) -> dict:
    """student → {"score", "max_score", "grades": {grade_id: (auto, manual, needs_manual, max)}, "comments"}."""
    from nbgrader.api import Gradebook

    config = (folder / "nbgrader_config.py").read_text()
    course_id = re.search(r"course_id = '([^']+)'", config).group(1)
    book = {}
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}", course_id) as gb:
        for submission in gb.find_assignment(lesson).submissions:
            entry = {"score": submission.score, "max_score": submission.max_score, "grades": {}, "comments": {}}
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    entry["grades"][grade.name] = (grade.auto_score, grade.manual_score, grade.needs_manual_grade,
                                                   grade.max_score, grade.score)
                for comment in notebook.comments:
                    entry["comments"][comment.name] = (comment.auto_comment, comment.manual_comment)
            book[submission.student_id] = entry
    return book


def feedback_text(folder: Path, student: str, lesson: str) -> str:
    return html.unescape((folder / "feedback" / student / lesson / f"{lesson}.html").read_text())


# --------------------------------------------------------------------------- the answers


def solution_code(lesson: course.Lesson, exercise: course.Exercise) -> str:
    """The solutions notebook's answer cell, without nbgrader's markers."""
    nb = nbformat.read(lesson.source_notebook(), as_version=4)
    cell = conventions.cells_by_grade_id(nb).get(exercise.id)
    if cell is not None:
        return conventions.without_solution_markers(cell.source).rstrip("\n") + "\n"
    raise AssertionError(f"{lesson.source_notebook()} has no answer cell {exercise.id}")


def answers_of(lesson_id: str) -> list[dict]:
    path = answers_path(REPO, lesson_id)
    assert path.is_file(), f"{path} is missing: every lesson needs its known-wrong answers"
    return tomllib.loads(path.read_text())["answer"]


# --------------------------------------------------------------------------- a submission


@dataclasses.dataclass
class Slot:
    """What one exercise of one submission holds, and what grading must make of it."""

    code: str | None  # the answer cell's new source; None keeps the release's (not attempted)
    earns: bool  # full points for the exercise, or 0
    feedback: list[str] = dataclasses.field(default_factory=list)  # text the feedback HTML must show
    name: str = ""


@dataclasses.dataclass
class Student:
    id: str
    slots: dict[str, Slot]  # exercise id → slot
    expect_in_line: list[str] = dataclasses.field(default_factory=list)  # text its result line must hold
    graded: bool = True  # nbgrader can autograde it (a corrupt file or a dead kernel cannot)
    extra_cell: str | None = None  # a code cell of the student's own, after the set-up cell
    trimmed: bool = False  # only the set-up, definition, answer and test cells (faster to grade)
    hidden_values: dict | None = None  # exercise → hidden-seed reference values the feedback must not show
def submission(release, student: Student):
    """The release notebook with the student's slots written in (and trimmed, or tampered with, as the student says)."""
    from gradtutor.course.extract import only_definitions

    nb = nbformat.from_dict(json.loads(json.dumps(release)))  # a deep copy
    cells = []
    first_code = next(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code")
    for index, cell in enumerate(nb.cells):
        if student.trimmed and cell.cell_type == "code" and index != first_code \
                and "nbgrader" not in cell.get("metadata", {}) and not only_definitions(cell.source, set()):
            continue
        grade_id = conventions.grade_id(cell)
        slot = student.slots.get(grade_id)
        if slot is not None and slot.code is not None:
            cell.source = slot.code
        exercise = conventions.exercise_of(grade_id)
        if exercise in student.slots and student.id == "tampered":
            if student.slots[exercise].name == "its test cell deleted":
                continue
            if student.slots[exercise].name == "its test cell edited":
                cell.source = "print('all tests passed')  # the checker was too strict\n"
        cells.append(cell)
    if student.extra_cell:
        first_code = next(i for i, cell in enumerate(cells) if cell.cell_type == "code")
        cells.insert(first_code + 1, nbformat.v4.new_code_cell(student.extra_cell))
    nb.cells = cells
    return nb
