"""A check in a notebook kernel is recorded by its judge process, exactly as `gradtutor check` records it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support import REPO
from tests.support.cli import run_cli

pytestmark = pytest.mark.tf

RIGHT = ("import tensorflow as tf\n\ndef grad_of_cube(x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n"
         "        y = tf.reduce_sum(x ** 3)\n    return tape.gradient(y, x)\n")


def test_does_the_judge_record_a_kernels_check_for_gradtutor_list(tmp_path):
    home = tmp_path / "home"
    assert run_cli("init", str(tmp_path / "ws")).returncode == 0
    notebook = tmp_path / "ws" / "lesson1" / "lesson1.ipynb"
    requests = [{"lesson": "lesson1", "exercise": "watch_constant", "function": "grad_of_cube", "cells": [RIGHT],
                 "seeds": "visible", "notebook": str(notebook)},
                {"lesson": "lesson1", "exercise": "numpy_input", "function": "grad_from_numpy", "cells": [RIGHT],
                 "seeds": "visible", "notebook": str(notebook)}]
    env = dict(os.environ, GRADTUTOR_HOME=str(home))
    env.pop("GRADTUTOR_JUDGE", None)
    done = subprocess.run([sys.executable, "-m", "gradtutor.learner.judge"], input="".join(json.dumps(r) + "\n" for r in requests),
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["status"] for r in replies] == ["pass", "error"], done.stderr[-2000:]
    progress = json.loads((home / "progress.json").read_text())
    assert progress[str(notebook.resolve())]["exercises"] == {"watch_constant": "pass", "numpy_input": "error"}
    listed = run_cli("list", cwd=tmp_path / "ws", env={"GRADTUTOR_HOME": str(home)})
    assert "1/4 passed" in listed.stdout and "next: lesson1 numpy_input" in listed.stdout
