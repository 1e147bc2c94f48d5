"""`gradtutor explain --fix` as a user runs it: the diff and its verification, --apply, --json; the script untouched.

Each run is two Python processes with TensorFlow (the script, then its patched copy): three runs here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.tf

REPO = Path(__file__).resolve().parents[2]
HELPER = "def scale(t):\n    return t * 3.0\n"
OUTSIDE = ("import sys\nimport tensorflow as tf\nfrom helper import scale\n\n"
           "w = tf.Variable([1.0, -2.0])\n"
           "with tf.GradientTape() as tape:\n"
           "    y = scale(w) * w\n"
           "loss = tf.reduce_sum(y) * float(sys.argv[1])\n"
           "print('gradient is None:', tape.gradient(loss, w) is None)\n")
UNFIXABLE = ("import numpy as np\nimport tensorflow as tf\n\n"
             "w = tf.Variable([1.0, 2.0])\n"
             "with tf.GradientTape() as tape:\n"
             "    y = tf.constant(np.asarray(w).T.copy())\n"  # .T and .copy() are NumPy's: the patch cannot run
             "    loss = tf.reduce_sum(y * y)\n"
             "print(tape.gradient(loss, w))\n")


def explain(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "gradtutor", "explain", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def snapshot(folder: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir() if p.is_file()}


def test_fix_shows_a_verified_patch_and_leaves_the_script_alone(tmp_path):
    (tmp_path / "train.py").write_text(OUTSIDE)
    (tmp_path / "helper.py").write_text(HELPER)  # the copy, run from a scratch folder, still imports it
    os.utime(tmp_path / "train.py", ns=(1_500_000_000_000_000_000, 1_500_000_000_000_000_000))
    before = snapshot(tmp_path)
    done = explain(tmp_path, "--fix", "train.py", "2")
    assert done.returncode == 1
    out = done.stdout.splitlines()
    assert out[0] == "gradient is None: True"  # the script's own output, once: the copy's is not shown
    assert ("✓ patch for outside-tape at line 8:  verified: the gradient for w is now finite and non-zero; "
            "matches central differences to 1e-3") in done.stdout
    assert "-loss = tf.reduce_sum(y) * float(sys.argv[1])" in out
    assert "+    loss = tf.reduce_sum(y) * float(sys.argv[1])" in out
    assert out[-1] == "fix: 1/1 verified, 0 suggested, 0 without a mechanical repair"
    assert snapshot(tmp_path) == before


def test_apply_writes_the_verified_patch_after_keeping_the_original(tmp_path):
    (tmp_path / "train.py").write_text(OUTSIDE)
    (tmp_path / "helper.py").write_text(HELPER)
    done = explain(tmp_path, "--json", "--apply", "train.py", "1")
    payload = json.loads(done.stdout)  # the JSON alone: what --apply says goes to stderr
    assert [(p["cause"], p["verified"]) for p in payload["fix"]["patches"]] == [("outside-tape", True)]
    assert 0 <= payload["fix"]["patches"][0]["fd_error"] <= 1e-3
    assert payload["fix"]["diff"].startswith("--- a/train.py\n+++ b/train.py\n")
    assert "gradtutor explain: patched train.py; the original is saved as train.py.orig" in done.stderr.splitlines()
    assert (tmp_path / "train.py.orig").read_text() == OUTSIDE
    assert "    loss = tf.reduce_sum(y) * float(sys.argv[1])\n" in (tmp_path / "train.py").read_text()
    again = subprocess.run([sys.executable, "train.py", "1"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=300, check=False)
    assert again.stdout.splitlines()[-1] == "gradient is None: False"


def test_a_refused_apply_changes_nothing_and_says_why_in_one_line(tmp_path):
    (tmp_path / "train.py").write_text(UNFIXABLE)
    before = snapshot(tmp_path)
    done = explain(tmp_path, "--fix", "--apply", "train.py")
    assert "? patch for leaves-tensorflow at line 6:  not verified: " in done.stdout
    assert "shown as a suggestion only" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == (
        "gradtutor explain: train.py was not changed: 1 of its patches did not verify (see above); "
        "--apply writes only a patch whose every hunk verified")
    assert snapshot(tmp_path) == before


def test_a_block_with_fix_true_logs_the_verified_patch_for_its_script(tmp_path):
    (tmp_path / "block.py").write_text(
        "import tensorflow as tf\nimport gradtutor\n\nx = tf.constant(3.0)\n"
        "with gradtutor.explain(fix=True):\n    with tf.GradientTape() as tape:\n        y = x * x\n"
        "    print('gradient:', tape.gradient(y, x))\n")
    before = snapshot(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "block.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.stdout.count("gradient: None") == 1  # the patched copy ran too, but quietly
    assert "✓ patch for unwatched at line 7:  verified: the gradient for x is now finite and non-zero" in done.stdout
    assert "+        tape.watch(x)" in done.stdout.splitlines()
    assert snapshot(tmp_path) == before



# Model.fit: the tape is in Keras's own train_step, the cut in the user's layer (patched there)
UNDER_FIT = ("import keras\nimport numpy as np\nimport tensorflow as tf\n\n\n"
             "class Frozen(keras.layers.Layer):\n"
             "    def __init__(self):\n"
             "        super().__init__()\n"
             "        self.dense = keras.layers.Dense(1)\n\n"
             "    def call(self, x):\n"
             "        return tf.stop_gradient(self.dense(x))\n\n\n"
             "model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), Frozen()])\n"
             "model.compile(optimizer='sgd', loss='mse')\n"
             "model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=2, batch_size=8, verbose=0)\n")


def test_a_layer_under_fit_is_patched_in_the_users_file_and_verified_from_the_compiled_steps(tmp_path):
    (tmp_path / "train.py").write_text(UNDER_FIT)
    before = snapshot(tmp_path)
    done = explain(tmp_path, "--fix", "--json", "train.py")
    report = json.loads(done.stdout)
    [patch] = report["fix"]["patches"]
    assert (patch["cause"], patch["broke_line"], patch["verified"], patch["fd_error"]) == ("stop-gradient", 12, True, None)
    assert patch["compiled_steps"] == 8  # 2 epochs of 4 batches, each checked in the graph
    assert patch["verification"].startswith("verified: the gradient for sequential/dense/kernel")
    assert "connected when traced" in patch["verification"]
    assert "+        return self.dense(x)" in report["fix"]["diff"].splitlines()
    assert snapshot(tmp_path) == before
