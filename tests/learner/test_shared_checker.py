"""One checker per learner: every lesson's kernel and the terminal ask the learner's one warm daemon.

Two notebooks with a wrong answer run in two kernels, then `gradtutor check` in the terminal: one
daemon serves all three (the same process throughout), no kernel starts a judge of its own, and each
verdict is the one a kernel's own judge gives. Under nbgrader's execution a kernel keeps its own judge.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from gradtutor.course import manifest as course
from gradtutor.learner.lab import process_tree
from tests.support import REPO
from tests.support.cli import run_cli

pytestmark = [pytest.mark.tf, pytest.mark.xdist_group("daemon")]

# In the kernel, after its check: the commands of every process below it (a judge of its own would be one)
BELOW_ME = ("import os\nfrom pathlib import Path\nfrom gradtutor.learner.lab import process_tree\n"
            "print(sorted(Path(f'/proc/{p.pid}/cmdline').read_bytes().replace(b'\\0', b' ').decode()\n"
            "             for p in process_tree.descendants(os.getpid())))")


def _notebook(lesson_id: str, exercise) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("import gradtutor.quiet\nimport tensorflow as tf\nfrom gradtutor import check"),
        nbformat.v4.new_code_cell(f"def {exercise.function}(*args):\n    return None"),
        nbformat.v4.new_code_cell(f'check("{lesson_id}", "{exercise.id}", {exercise.function}, seeds="visible")'),
        nbformat.v4.new_code_cell(BELOW_ME),
    ]
    return notebook


def _daemons(home: Path) -> list[int]:
    """The pids of the warm daemons of this state folder."""
    mark = f"GRADTUTOR_HOME={home}".encode()
    found = []
    for pid in process_tree.all_processes():
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"gradtutor.learner.daemon" in command and mark in environment:
            found.append(pid)
    return found


def _stop_daemon(env: dict) -> None:
    subprocess.run([sys.executable, "-c", "from gradtutor.learner.daemon.client import stop; stop()"],
                   env=env, cwd=REPO, capture_output=True, timeout=60)


def _printed(cell):
    """All a cell printed: the kernel flushes stdout on a timer, so one print may come as several messages."""
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_do_two_kernels_and_the_terminal_share_one_checker(tmp_path, monkeypatch):
    home = tmp_path / "home"
    for name, value in {"GRADTUTOR_HOME": str(home), "GRADTUTOR_NO_DAEMON": "0"}.items():
        monkeypatch.setenv(name, value)  # the kernels inherit this process's environment
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    lessons = random.sample(course.load().lessons, 2)  # two lessons open at once, as a learner has them
    seen = []
    try:
        for lesson in lessons:
            exercise = random.choice(lesson.exercises)
            notebook = _notebook(lesson.id, exercise)
            NotebookClient(notebook, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": str(tmp_path)}}).execute()
            html = " ".join(o.get("data", {}).get("text/html", "") for o in notebook.cells[2].outputs)
            assert f"{lesson.id} / {exercise.id}" in html and "✗" in html, html[:500]
            below = _printed(notebook.cells[3])
            assert "gradtutor.learner.judge" not in below, f"the kernel started a judge of its own: {below}"
            seen.append(_daemons(home))
        done = run_cli("check", "lesson1", "--file", str(REPO / "solutions" / "lesson1" / "lesson1.ipynb"),
                       env={"GRADTUTOR_HOME": str(home), "GRADTUTOR_NO_DAEMON": "0"})
        assert done.returncode == 0, done.stdout + done.stderr
        seen.append(_daemons(home))
        assert len(seen[0]) == 1 and seen[0] == seen[1] == seen[2], f"one daemon for both kernels and the terminal: {seen}"
    finally:
        _stop_daemon(dict(os.environ))


def test_does_a_kernel_under_nbgrader_keep_its_own_judge(tmp_path, monkeypatch):
    home = tmp_path / "home"
    for name, value in {"GRADTUTOR_HOME": str(home), "GRADTUTOR_NO_DAEMON": "0", "NBGRADER_EXECUTION": "validate"}.items():
        monkeypatch.setenv(name, value)
    lesson = course.load().lesson("lesson1")
    exercise = random.choice(lesson.exercises)
    notebook = _notebook(lesson.id, exercise)
    notebook.cells[2].source = f"try:\n    {notebook.cells[2].source}\nexcept AssertionError as failed:\n    print(type(failed).__name__)"
    try:
        NotebookClient(notebook, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(tmp_path)}}).execute()
        said = "".join(o.get("text", "") for o in notebook.cells[2].outputs if o.output_type == "stream")
        assert said.strip() == "ExerciseFailed"
        assert "gradtutor.learner.judge" in _printed(notebook.cells[3])
        assert _daemons(home) == []
    finally:
        _stop_daemon(dict(os.environ))
