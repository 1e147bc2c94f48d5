"""`gradtutor explain` as a new user meets it: bad input in one line, the script's output untouched, --json alone on stdout."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.tf

REPO = Path(__file__).resolve().parents[2]


def explain(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "gradtutor", "explain", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_a_missing_script_is_one_line_and_exit_2(tmp_path):
    done = explain(tmp_path, "train.py")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "gradtutor: train.py: no such file — give the path of your Python script (gradtutor explain train.py)"]


def test_a_syntax_error_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "train.py").write_text("import tensorflow as tf\nprint('hi'\n")
    done = explain(tmp_path, "train.py")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gradtutor: train.py line 2: ") and "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_a_binary_file_is_said_to_be_no_python_in_one_line(tmp_path):
    """Bytes with a NUL in them have no line to point at: not a syntax error at `line None`, but no Python at all."""
    data = bytes(range(256))
    (tmp_path / "train.py").write_bytes(data)
    done = explain(tmp_path, "train.py")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()  # the words are Python's own, which differ between its versions
    assert line.startswith("gradtutor: train.py") and "null bytes" in line and "line None" not in line, line
    assert (tmp_path / "train.py").read_bytes() == data


def test_a_notebook_is_named_as_one_and_left_as_it_was(tmp_path):
    # a notebook's JSON compiles as Python (a dict literal) and then fails on `null`: not a script to run
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": "import tensorflow as tf\nx = tf.constant(3.0)\n"}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "Train.ipynb").write_text(json.dumps(notebook))
    before = (tmp_path / "Train.ipynb").read_bytes()
    done = explain(tmp_path, "Train.ipynb")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gradtutor: Train.ipynb is a notebook") and "%%explain" in lines[0]
    assert "nbconvert --to script Train.ipynb" in lines[0]
    assert (tmp_path / "Train.ipynb").read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["Train.ipynb"]


def test_a_script_that_exits_3_and_asks_for_no_gradient(tmp_path):
    (tmp_path / "train.py").write_text("import sys\nprint('bye', sys.argv[1:])\nsys.exit(3)\n")
    done = explain(tmp_path, "train.py", "--epochs", "2")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == "bye ['--epochs', '2']"
    assert done.stdout.splitlines()[1:] == [
        ("gradtutor explain: train.py asked TensorFlow for no gradient, so there was nothing to check; "
        "train.py itself exited with code 3.")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_explains_own_flag_after_the_script_goes_to_the_script_and_is_said(tmp_path):
    """`explain train.py --fix` passes --fix on to train.py, as `python train.py --fix` would; one line says so and
    shows the order explain reads (a script of its own that takes --json still gets it)."""
    (tmp_path / "train.py").write_text("import sys\nprint('args', sys.argv[1:])\n")
    done = explain(tmp_path, "train.py", "--fix", "--epochs", "2")
    assert done.returncode == 0 and done.stdout.splitlines()[0] == "args ['--fix', '--epochs', '2']"
    assert done.stderr.strip().splitlines()[-1] == (
        "gradtutor explain: --fix after train.py goes to train.py as its own argument, as with python; for "
        "explain's own, put it before the script: gradtutor explain --fix train.py")


def test_gradients_all_below_tiny_get_no_all_clear_but_the_line_they_were_seen_at(tmp_path):
    """A weight next to a kink or a minimum: its gradient 2e-8 is finite and not zero, and not known to be fine."""
    (tmp_path / "train.py").write_text("import tensorflow as tf\nw = tf.Variable(1e-8)\n"
                                       "with tf.GradientTape() as tape:\n    y = w * w\nprint(tape.gradient(y, w))\n")
    done = explain(tmp_path, "train.py")
    shown = done.stdout.splitlines()
    assert done.returncode == 0 and not any(line.startswith("✓") for line in shown)
    assert shown[-2].startswith("? every gradient train.py asked for came back finite and not all zero")
    assert shown[-1].startswith("  ~ train.py:5 (tape.gradient): every gradient was below 1e-6")


def test_json_is_all_of_stdout_and_the_scripts_own_output_goes_to_stderr(tmp_path):
    (tmp_path / "helper.py").write_text("def square(x):\n    return x * x\n")
    (tmp_path / "train.py").write_text(
        "import tensorflow as tf\nfrom helper import square\n"
        "x = tf.constant(3.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    y = square(x)\n"
        "print('gradient:', tape.gradient(y, x))\n"
        "try:\n    tape.gradient(y, x)\nexcept RuntimeError:\n    print('caught')\n")
    done = explain(tmp_path, "--json", "train.py")
    assert done.returncode == 1
    ours = ["gradient: None", "caught"]  # (TensorFlow's own log lines may be on stderr too)
    assert [line for line in done.stderr.splitlines() if line in ours] == ours
    report = json.loads(done.stdout)  # the whole of stdout: a pipe into a JSON reader works
    assert report["script_exit"] == 0
    assert [(f["cause"], f["line"], f["broke_at"]["line"]) for f in report["findings"]] == [
        ("unwatched", 6, 3), ("tape-reused", 8, 4)]
    assert report["findings"][0]["sources"] == ["x"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["helper.py", "train.py"]  # no __pycache__
