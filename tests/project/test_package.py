"""Importing gradtutor has no side effects: no process starts, even inside a Jupyter kernel."""
from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.unit

# Run in a fresh interpreter, as a kernel imports gradtutor; `ipykernel` in sys.modules is how
# gradtutor used to tell it was in a kernel. os.waitpid(-1) raises ChildProcessError when the
# process has no child at all, started by any means.
PROBE = """
import os, subprocess, sys, types
sys.modules.setdefault("ipykernel", types.ModuleType("ipykernel"))
started = []
popen_init = subprocess.Popen.__init__
def spy(self, *args, **kwargs):
    started.append(args[0] if args else kwargs.get("args"))
    popen_init(self, *args, **kwargs)
subprocess.Popen.__init__ = spy
import gradtutor
from gradtutor import check, prestart
import gradtutor.learner.notebook
try:
    os.waitpid(-1, os.WNOHANG)
    children = True
except ChildProcessError:
    children = False
print(started, children, callable(prestart), callable(check))
"""


def test_importing_gradtutor_in_a_kernel_starts_no_process():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "False", "True", "True"], done.stdout + done.stderr


def test_a_lesson_set_up_cell_starts_the_checker_explicitly():
    from gradtutor.course import manifest as course

    for lesson in course.load().lessons:
        for path in (lesson.source_notebook(), lesson.release_notebook()):
            assert "gradtutor.prestart()" in path.read_text(encoding="utf-8"), path
