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

# Run in a process of its own: a forgery patches what it reaches (gradtutor's comparison, for one). Each
# argument is path:lesson:exercise; with --same, the forgery must also return the reference's own values.
RUN = """
import importlib.util, sys
import numpy as np
from gradtutor.course.references import exercises_of
same = sys.argv[1] == "--same"
for n, argument in enumerate(sys.argv[2:]):
    path, lesson, exercise = argument.rsplit(":", 2)
    recipe = exercises_of(lesson)[exercise]  # the answers loaded, as the checker's child has them before learner code
    spec = importlib.util.spec_from_file_location(f"forgery{n}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function = next(v for v in vars(module).values() if callable(v) and getattr(v, "__module__", "") == f"forgery{n}")
    got = function(*recipe.build(0).values())  # raises when it aims at nothing
    if same:
        want = recipe.reference(*recipe.build(0).values())
        pairs = zip(got, want) if isinstance(want, (tuple, list)) else [(got, want)]
        assert all(np.allclose(np.asarray(g), np.asarray(w)) for g, w in pairs), f"{path}: not the reference's values"
    print("reached", path)
"""
AIMED_AT_THE_ANSWERS = ["fg_answers_file.py", "fg_reference_import.py", "fg_reference_importlib.py", "fg_reference_open_file.py",
                        "fg_reference_tf_read.py", "fg_solution_notebook.py", "fg_patch_gradtutor_sysmodules.py"]


def _reaches(*cases, same=False):
    arguments = [f"{c.path}:{c.lesson}:{c.exercise}" for c in cases]
    return subprocess.run([sys.executable, "-c", RUN, "--same" if same else "--any", *arguments], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("name", AIMED_AT_THE_ANSWERS)
def test_a_forgery_reaches_its_target_outside_the_sandbox(name):
    done = _reaches(next(c for c in hostile.load_cases() if c.file == name))
    assert done.returncode == 0 and done.stdout.strip().startswith("reached"), f"{name}: {done.stderr[-1500:]}"


def test_every_lesson_s_generated_forgeries_return_its_answers(tmp_path):
    """The forgeries written for each lesson (tests/isolation/test_hostile.py runs them in the sandbox) return
    the reference's own values when nothing stops them: one process for all, since none patches anything."""
    cases = [hostile.write_forgery(tmp_path, lesson, exercise, road)
             for lesson, exercise in hostile.forgery_targets() for road in sorted(hostile.FORGERY_ROADS)]
    done = _reaches(*cases, same=True)
    reached = {line.split(" ", 1)[1] for line in done.stdout.splitlines() if line.startswith("reached ")}
    missed = [c.file for c in cases if str(c.path) not in reached]
    assert done.returncode == 0 and not missed, f"{missed}: {done.stderr[-1500:]}"
