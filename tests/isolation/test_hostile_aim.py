"""Do the hostile corpus's forgeries still aim at something real? Each one, run outside the sandbox, reaches
the answers it goes for: the reference module (by import, by its file, through TensorFlow's file system) or the
solution notebook. When the package moves a file, a forgery that silently aims at nothing would still "fail" in
the sandbox and prove nothing; here it would fail loudly instead."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import REPO, hostile

pytestmark = pytest.mark.tf

# Run in a process of its own: a forgery patches what it reaches (gradtutor's comparison, for one).
RUN = """
import importlib.util, sys
from gradtutor.course.references import exercises_of
path, lesson, exercise = sys.argv[1:]
recipe = exercises_of(lesson)[exercise]  # the answers loaded, as the checker's child has them before learner code
spec = importlib.util.spec_from_file_location("forgery", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
function = next(v for v in vars(module).values() if callable(v) and getattr(v, "__module__", "") == "forgery")
function(*recipe.build(0).values())  # raises when it aims at nothing
print("reached")
"""
AIMED_AT_THE_ANSWERS = ["fg_answers_file.py", "fg_reference_import.py", "fg_reference_importlib.py", "fg_reference_open_file.py",
                        "fg_reference_tf_read.py", "fg_solution_notebook.py", "fg_patch_gradtutor_sysmodules.py"]


@pytest.mark.parametrize("name", AIMED_AT_THE_ANSWERS)
def test_a_forgery_reaches_its_target_outside_the_sandbox(name):
    case = next(c for c in hostile.load_cases() if c.file == name)
    done = subprocess.run([sys.executable, "-c", RUN, str(case.path), case.lesson, case.exercise], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("reached"), f"{name}: {done.stderr[-1500:]}"
