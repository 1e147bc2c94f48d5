"""`gradtutor explain` overhead on training loops: an eager custom loop, a `@tf.function` loop and `Model.fit`,
and a small `@tf.function` step (an MLP 256 wide, batch 128: a step of about 1.7 ms here, the small compiled step
the target is set for, ≤ 1.1×), where the in-graph checks of each gradient weigh most. The checks cost the same
whatever the batch (they read the gradients, whose sizes are the layers'), so shorter steps of the same shapes are
measured too and printed on a line of their own: batch 32 (about 1 ms here; it was the 1.7 ms step on the machines
the target was first measured on) and a net 64 wide (about 0.5 ms). There the same checks weigh up to three
times as much, and the target is not claimed for them.

One three-layer MLP (batch 256, wide enough that a step takes tens of milliseconds here), Adam. The same script
runs twice at once, as `python train.py MODE` and as `gradtutor explain train.py MODE`, in lockstep: after one
warm-up step (TensorFlow's import and the first trace are the same either way and are left out) each waits for
its turn, runs a segment of its loop, says how much CPU time the segment took, and waits again; the turns
alternate, the plain run first in one round and the explained one first in the next. The figure is the median of
the rounds' ratios over PAIRS such pairs of processes; each loop's line also gives the ratio of the whole loops,
which counts the one-time costs: a function's first calls (its monitors read after each, snapshot.py) and a step
replayed eagerly when the in-graph screen saw a gradient's magnitudes fall below TINY (traced.py; on the 256-wide
MLP the middle kernel's do, late in the loop: one replay of about 0.1 s).

Why so: this machine's speed drifts by 20 % within seconds, even for one pinned thread, so two runs measured one
after the other differ by more than the overhead being measured (five pairs of whole runs gave 0.90× to 1.27× for
one build). Segments a twentieth of a second apart see the same machine. Both runs are pinned to one core with one
TensorFlow thread: with two threads on two cores the rounds' ratios scattered three times as widely, and one
thread is the harder case, where no check can run beside the step on the other core.

Prints: explain overhead: eager X.XX×, tf.function Y.YY×, fit Z.ZZ×, small tf.function W.WW×
then: explain overhead on a step below the target's: smaller tf.function V.VV×, smallest tf.function U.UU×
and one line per loop with its step times. `python -m benchmarks.bench_explain MODE…` measures only the
loops named (e.g. "small tf.function"). Both runs import gradtutor from the tree this file is in (REPO, put first
on their PYTHONPATH): to measure another commit, run its own copy from its own checkout, not this one with
PYTHONPATH pointing there.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAIRS = 2  # pairs of processes per loop: what differs from one process to the next counts too
# (steps, steps a segment) of each loop
STEPS = {"eager": (40, 5), "tf.function": (80, 10), "fit": (80, 10), "small tf.function": (600, 20),
         "smaller tf.function": (1000, 25), "smallest tf.function": (1500, 50)}
# (layer width, batch) of each loop's MLP
SIZES = {"eager": (1024, 256), "tf.function": (1024, 256), "fit": (1024, 256), "small tf.function": (256, 128),
         "smaller tf.function": (256, 32), "smallest tf.function": (64, 32)}
BEYOND = ("smaller tf.function", "smallest tf.function")  # measured and printed, but smaller than the step the target is set for
SCRIPT = '''
import sys
import time
import numpy as np
import tensorflow as tf
import keras

tf.config.threading.set_inter_op_parallelism_threads(1)  # one thread, as the run is pinned to one core (main())
tf.config.threading.set_intra_op_parallelism_threads(1)
mode, steps, width, batch, segment = sys.argv[1], *map(int, sys.argv[2:6])
turns, said = open(sys.argv[6], "rb", buffering=0), open(sys.argv[7], "w", buffering=1)


def wait_turn():
    turns.read(1)
    return time.process_time()


def say_time(started):
    said.write(f"{time.process_time() - started}\\n")


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


class Lockstep(keras.callbacks.Callback):
    def on_train_batch_begin(self, number, logs=None):
        if number % segment == 0:
            self.started = wait_turn()

    def on_train_batch_end(self, number, logs=None):
        if number % segment == segment - 1:
            say_time(self.started)


if mode == "fit":
    model.compile(optimizer=optimizer, loss=loss_fn)
    model.fit(x_all[:batch], y_all[:batch], batch_size=batch, epochs=1, verbose=0)  # the trace
    model.fit(x_all, y_all, batch_size=batch, epochs=1, verbose=0, shuffle=False, callbacks=[Lockstep()])
else:
    run = tf.function(step) if mode.endswith("tf.function") else step
    run(x_all[:batch], y_all[:batch])  # build the model and the optimizer (and trace) first
    for first in range(0, steps, segment):
        started = wait_turn()
        for i in range(first, first + segment):
            loss = run(x_all[i * batch:(i + 1) * batch], y_all[i * batch:(i + 1) * batch])
            if i % 20 == 0:
                print("step", i, "loss", float(loss))
        say_time(started)
'''


class Run:
    """One run of the script, started at once and then driven a segment at a time through two named pipes."""

    def __init__(self, command: list[str], folder: str, name: str):
        self.turns, self.said = os.path.join(folder, f"{name}.turns"), os.path.join(folder, f"{name}.said")
        os.mkfifo(self.turns)
        os.mkfifo(self.said)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
                   TF_CPP_MIN_LOG_LEVEL="3")
        self.log = open(os.path.join(folder, f"{name}.log"), "w+")
        core = max(os.sched_getaffinity(0))
        self.process = subprocess.Popen([*command, self.turns, self.said], cwd=folder, env=env, stdout=self.log,
                                        stderr=subprocess.STDOUT, preexec_fn=lambda: os.sched_setaffinity(0, {core}))
        self.to, self.back = None, None

    def open(self) -> None:  # blocks until the script opened its ends (after its imports)
        self.to = open(self.turns, "wb", buffering=0)
        self.back = open(self.said, "r")

    def segment(self) -> float:
        self.to.write(b"x")
        line = self.back.readline()
        if not line:
            self.process.wait(timeout=60)
            self.log.seek(0)
            raise SystemExit(f"bench_explain: the loop did not finish:\n{self.log.read()[-3000:]}")
        return float(line)

    def close(self) -> None:
        for pipe in (self.to, self.back):
            if pipe is not None:
                pipe.close()
        self.process.wait(timeout=300)
        self.log.close()


def lockstep(args: list[str], folder: str, pair: int, segments: int) -> list[tuple[float, float]]:
    """(plain, explained) CPU seconds of each segment, the two runs taking turns."""
    alone = Run([sys.executable, *args], folder, f"alone{pair}")
    explained = Run([sys.executable, "-m", "gradtutor", "explain", *args], folder, f"explained{pair}")
    times = []
    try:
        alone.open()
        explained.open()
        for number in range(segments):
            if number % 2:
                e = explained.segment()
                a = alone.segment()
            else:
                a = alone.segment()
                e = explained.segment()
            times.append((a, e))
    finally:
        alone.close()
        explained.close()
    return times


def main() -> int:
    ratios, lines = {}, []
    chosen = [mode for mode in STEPS if mode in sys.argv[1:]] or list(STEPS)
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "train.py").write_text(SCRIPT)
        for mode in chosen:
            steps, segment = STEPS[mode]
            args = ["train.py", mode, str(steps), *map(str, SIZES[mode]), str(segment)]
            times = [t for pair in range(PAIRS) for t in lockstep(args, folder, len(lines) * PAIRS + pair,
                                                                      steps // segment)]
            ratios[mode] = statistics.median(e / a for a, e in times)
            a, e = (statistics.median(t[i] for t in times) / segment for i in (0, 1))
            whole = sum(e for _, e in times) / sum(a for a, _ in times)  # with the first calls' one-time costs
            lines.append(f"  {mode}: {steps} steps in segments of {segment}, {1000 * a:.2f} ms a step alone, "
                         f"{1000 * e:.2f} ms under explain (medians of {len(times)} segments taken in turns); "
                         f"whole loops {whole:.2f}×")
    targeted = [mode for mode in ratios if mode not in BEYOND]
    if targeted:
        print("explain overhead: " + ", ".join(f"{mode} {ratios[mode]:.2f}×" for mode in targeted))
    beyond = [mode for mode in ratios if mode in BEYOND]
    if beyond:
        print("explain overhead on a step below the target's: "
              + ", ".join(f"{mode} {ratios[mode]:.2f}×" for mode in beyond))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
