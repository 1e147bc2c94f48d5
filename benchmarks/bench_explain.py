"""`gradtutor explain` overhead on a 200-step custom training loop (a Dense network, Adam, numpy batches).

The loop's own time is measured inside the script (TensorFlow's import is the same either way and
is left out), once run as `python train.py` and once as `gradtutor explain train.py`, alternately,
the best of three runs of each. The time is the process's CPU time over the loop: on a machine
shared with other work, wall time swings by 2× from one run to the next, CPU time much less.

Prints: explain overhead: R× (script alone S s, under explain E s)
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STEPS = 200
SCRIPT = f'''
import time
import numpy as np
import tensorflow as tf
import keras

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"),
                          keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)])
optimizer = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
x_all = np.random.rand(1024, 32).astype("float32")
y_all = np.random.randint(0, 10, size=(1024,))


def step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


step(x_all[:32], y_all[:32])  # build the model and the optimizer first
started = time.process_time()
for i in range({STEPS}):
    j = (i * 32) % 1024
    loss = step(x_all[j:j + 32], y_all[j:j + 32])
    if i % 50 == 0:
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
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "train.py").write_text(SCRIPT)
        alone, explained = [], []
        for _ in range(3):
            alone.append(loop_seconds([sys.executable, "train.py"], folder))
            explained.append(loop_seconds([sys.executable, "-m", "gradtutor", "explain", "train.py"], folder))
    s, e = min(alone), min(explained)
    print(f"explain overhead: {e / s:.2f}× (script alone {s:.2f} s, under explain {e:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
