"""`gradtutor explain` overhead on training loops: an eager custom loop, a `@tf.function` loop and `Model.fit`,
and a small `@tf.function` step (a narrow MLP, batch 32: a step of about 2 ms, where the in-graph checks
of each gradient weigh most).

One three-layer MLP (batch 256, wide enough that a step takes more than 5 ms here), Adam. The
loop's own time is measured inside the script after one warm-up step (TensorFlow's import and
the first trace are the same either way and are left out), once run as `python train.py MODE`
and once as `gradtutor explain train.py MODE`, in alternated pairs; the figure is the median of
the pairs' ratios. The time is the process's CPU time over the loop: on a machine shared with
other work, wall time swings by 2× from one run to the next, CPU time much less.

Prints: explain overhead: eager X.XX×, tf.function Y.YY×, fit Z.ZZ×, small tf.function W.WW×
and one line per loop with its medians and the step time. `python -m benchmarks.bench_explain MODE…`
measures only the loops named (e.g. "small tf.function").
"""
from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAIRS = 5  # alternated runs per loop: one run disturbed by the machine's other work moves a median of five less
STEPS = {"eager": 40, "tf.function": 80, "fit": 80, "small tf.function": 1500}
# (layer width, batch) of each loop's MLP
SIZES = {"eager": (1024, 256), "tf.function": (1024, 256), "fit": (1024, 256), "small tf.function": (64, 32)}
SCRIPT = '''
import sys
import time
import numpy as np
import tensorflow as tf
import keras

mode, steps, width, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((256,)), keras.layers.Dense(width, activation="relu"),
                          keras.layers.Dense(width, activation="relu"), keras.layers.Dense(10)])
optimizer = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
x_all = np.random.rand(steps * batch, 256).astype("float32")
y_all = np.random.randint(0, 10, size=(steps * batch,))


def step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


if mode == "fit":
    model.compile(optimizer=optimizer, loss=loss_fn)
    model.fit(x_all[:batch], y_all[:batch], batch_size=batch, epochs=1, verbose=0)  # the trace
    started = time.process_time()
    model.fit(x_all, y_all, batch_size=batch, epochs=1, verbose=0, shuffle=False)
else:
    run = tf.function(step) if mode.endswith("tf.function") else step
    run(x_all[:batch], y_all[:batch])  # build the model and the optimizer (and trace) first
    started = time.process_time()
    for i in range(steps):
        loss = run(x_all[i * batch:(i + 1) * batch], y_all[i * batch:(i + 1) * batch])
        if i % 20 == 0:
            print("step", i, "loss", float(loss))
print("LOOP", time.process_time() - started)
'''


def loop_seconds(command: list[str], cwd: str) -> float:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
               TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    found = re.search(r"^LOOP ([0-9.]+)$", done.stdout, re.MULTILINE)
    if not found:
        raise SystemExit(f"bench_explain: the loop did not finish:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return float(found.group(1))


def main() -> int:
    ratios, lines = {}, []
    chosen = [mode for mode in STEPS if mode in sys.argv[1:]] or list(STEPS)
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "train.py").write_text(SCRIPT)
        for mode in chosen:
            steps = STEPS[mode]
            args = ["train.py", mode, str(steps), *map(str, SIZES[mode])]
            alone, explained = [], []
            for _ in range(PAIRS):
                alone.append(loop_seconds([sys.executable, *args], folder))
                explained.append(loop_seconds([sys.executable, "-m", "gradtutor", "explain", *args], folder))
            ratios[mode] = statistics.median(e / a for a, e in zip(alone, explained))
            a, e = statistics.median(alone), statistics.median(explained)
            lines.append(f"  {mode}: {steps} steps, script alone {a:.2f} s ({1000 * a / steps:.1f} ms a step), "
                         f"under explain {e:.2f} s (median of {PAIRS} alternated pairs)")
    print("explain overhead: " + ", ".join(f"{mode} {ratio:.2f}×" for mode, ratio in ratios.items()))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
