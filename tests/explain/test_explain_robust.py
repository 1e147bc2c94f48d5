"""`gradtutor explain` on real scripts: one that raises, Ctrl-C, threads, MirroredStrategy, `-m`, stdin, sys.exit.

Each script is run the way its author runs it, only with `gradtutor explain` in front; the script's
traceback, output and exit code stay its own, and the findings up to the end are reported.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.tf

REPO = Path(__file__).resolve().parents[2]
UNWATCHED = "import tensorflow as tf\n\nx = tf.constant(3.0)\nwith tf.GradientTape() as tape:\n    y = x * x\n" \
            "print(tape.gradient(y, x))\n"  # a finding at line 6; the unwatched source was made at line 3


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "gradtutor", "explain", *args]


def environment(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return dict(env, **extra)


def explain(folder: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(command("--json", *args), cwd=folder, env=environment(), input=stdin,
                          capture_output=True, text=True, timeout=600, check=False)


def report(done) -> dict:
    return json.loads(done.stdout.strip().splitlines()[-1])


def causes(payload) -> list:
    return [(f["cause"], f["line"], (f["broke_at"] or {}).get("line")) for f in payload["findings"]]


def test_a_module_gets_its_arguments_stdin_and_exit_code_and_tensorflow_is_quiet(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "train.py").write_text(
        UNWATCHED + "import sys\nprint('args', sys.argv[1:], 'stdin', sys.stdin.readline().strip())\nsys.exit(4)\n")
    done = explain(tmp_path, "-m", "pkg.train", "--epochs", "2", stdin="hello\n")
    assert done.returncode == 1
    payload = report(done)
    assert payload["script_exit"] == 4 and causes(payload) == [("unwatched", 6, 3)]
    # with --json the script's own output is on stderr (stdout is the report's), and nothing else is there: no absl
    # / oneDNN / CUDA lines from TensorFlow's C++ side
    assert done.stderr.splitlines() == ["None", "args ['--epochs', '2'] stdin hello"]


def test_a_script_that_raises_keeps_its_traceback_and_exit_code_and_its_findings(tmp_path):
    (tmp_path / "train.py").write_text(UNWATCHED + "raise ValueError('boom')\n")
    done = explain(tmp_path, "train.py")
    printed, traceback = done.stderr.split("\n", 1)  # its print (--json: on stderr), then its traceback
    assert printed == "None" and traceback.startswith("Traceback (most recent call last):")
    assert 'File "train.py", line 7, in <module>' in done.stderr and done.stderr.rstrip().endswith("ValueError: boom")
    assert "gradtutor" not in done.stderr and "runpy" not in done.stderr
    payload = report(done)
    assert payload["script_exit"] == 1 and causes(payload) == [("unwatched", 6, 3)]


def test_an_error_raised_through_a_gradient_call_shows_none_of_gradtutors_frames(tmp_path):
    """While recording, tape.gradient and the optimizer pass through gradtutor's wrappers: the script's traceback
    still reads as it would without explain (its own line, then TensorFlow's)."""
    (tmp_path / "train.py").write_text("import tensorflow as tf\nx = tf.constant(2.0)\n"
                                       "with tf.GradientTape() as tape:\n    tape.watch(x)\n    y = x * x\n"
                                       "tape.gradient(y, x)\ntape.gradient(y, x)\n")
    done = explain(tmp_path, "train.py")
    assert 'File "train.py", line 7, in <module>' in done.stderr and "RuntimeError" in done.stderr
    assert "gradtutor" not in done.stderr and "backprop.py" in done.stderr  # TensorFlow's own frames stay


def test_ctrl_c_stops_the_script_and_still_reports(tmp_path):
    (tmp_path / "train.py").write_text(UNWATCHED + "import time\nprint('ready', flush=True)\nwhile True:\n"
                                       "    time.sleep(0.05)\n")
    # its own session, as a terminal's foreground group: Ctrl-C sends SIGINT to every process of it
    child = subprocess.Popen(command("--json", "train.py"), cwd=tmp_path, env=environment(), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        lines = []  # with --json the script's own output is on stderr (stdout is the report's)
        while not lines or lines[-1] != "ready\n":
            lines.append(child.stderr.readline())
            assert lines[-1], "the script ended before it was interrupted"
        os.killpg(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert child.returncode == 1 and "KeyboardInterrupt" in err
    payload = json.loads(out)
    assert payload["script_exit"] == 130 and causes(payload) == [("unwatched", 6, 3)]


THREADS = '''import threading
import tensorflow as tf

w = tf.Variable(tf.ones((3, 1)))
data = tf.data.Dataset.from_tensor_slices(tf.random.normal((64, 3))).map(lambda v: v * 2.0).batch(8).prefetch(2)


@tf.function
def step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.stop_gradient(tf.matmul(x, w)))
    return tape.gradient(loss, w)


worker = threading.Thread(target=lambda: [step(x) for x in data])
worker.start()
worker.join()
'''


def test_a_thread_that_runs_a_compiled_step_on_a_tf_data_pipeline(tmp_path):
    (tmp_path / "train.py").write_text(THREADS)
    payload = report(explain(tmp_path, "train.py"))
    assert payload["script_exit"] == 0 and causes(payload) == [("stop-gradient", 12, 11)]


MIRRORED = '''import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
import keras  # noqa: E402

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
x, y = np.random.rand(32, 4).astype("float32"), np.random.rand(32, 1).astype("float32")
model.fit(x, y, batch_size=8, epochs=2, verbose=0)  # correct: no finding
dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(8))


@tf.function
def step(batch):
    def replica(inputs):
        features, labels = inputs
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.stop_gradient(model(features)) - labels))
        return tape.gradient(loss, model.trainable_variables)
    return strategy.run(replica, args=(batch,))


for batch in dataset:
    step(batch)
'''


def test_mirrored_strategy_on_two_logical_cpus(tmp_path):
    (tmp_path / "train.py").write_text(MIRRORED)
    payload = report(explain(tmp_path, "train.py"))
    assert payload["script_exit"] == 0 and causes(payload) == [("stop-gradient", 23, 22)]


def test_a_script_that_imports_keras_first_gets_keras_findings(tmp_path):
    """`import keras` imports TensorFlow, which starts the recording while Keras is still half-imported."""
    # the empty list given to the tape is the finding; the optimizer that then received its None is the same root
    # cause, reported once (evidence.report merges a tape.gradient None with the apply_gradients that received it)
    for name, calls in (("keras_raw_variable_untracked.py", ["gradient"]),
                        ("compiled_fit_untracked_variable.py", ["fit"])):
        text = (REPO / "tests" / "explain" / "corpus" / name).read_text()
        assert text.index("import keras") < text.index("import tensorflow")
        (tmp_path / name).write_text(text)
        payload = report(explain(tmp_path, name))
        assert [(f["call"], f["cause"], f["broke_at"]["line"]) for f in payload["findings"]] == [
            (call, "not-used", 11) for call in calls], name
