"""dh_t/dh_0 for every t: lesson 4's method against the seed's one-tape-per-step loop, side by side.

Both produce the same (B, T, H, H) Jacobian of every SimpleRNN state with respect
to the initial state, at B=32, T=40, H=64 (input width 100, like the seed's
GloVe embedding):

* the seed's shape: for each t, a fresh tape, a forward pass, and
  tape.batch_jacobian(states[:, t, :], h0) — T forward passes and T eager
  batch_jacobian calls, each of which traces its own vectorised function;
* the lesson's method for few inputs / many outputs: forward mode in one pass
  (tf.autodiff.ForwardAccumulator, each example repeated H times with a unit
  tangent per copy), eager — no tracing to amortise.

Also printed for reference: one eager tape.batch_jacobian(states, h0) on all
steps. (Its @tf.function version runs fast once traced, but tracing it takes
longer than the whole loop below at this size, so it is not timed here.)

The per-step loop is timed over all T steps. On a busy machine set
BENCH_JACOBIAN_STEPS=k to time only its first k steps; the time is then
extrapolated linearly to T (each step costs the same: one forward pass and one
batch_jacobian of identical shape) and the line says so.

Goal: speedup >= 10x; max abs difference <= 1e-5 (exit 1 if not).
"""
from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

B, T, H, D = 32, 40, 64, 100
TOLERANCE = 1e-5
GOAL = 10.0


def jacobian_per_step(rnn, x, h0, steps):
    """The seed's loop: one tape per step t, each asking batch_jacobian for dh_t/dh_0 alone."""
    blocks = []
    for t in range(steps):
        with tf.GradientTape() as tape:
            tape.watch(h0)
            h_t = rnn(x, initial_state=h0)[:, t, :]
        blocks.append(tape.batch_jacobian(h_t, h0))
    return tf.stack(blocks, axis=1)


def jacobian_forward(rnn, x, h0):
    """The lesson's method: forward mode, all H directions in one pass."""
    batch, units = h0.shape
    h0_rep = tf.repeat(h0, units, axis=0)
    tangents = tf.tile(tf.eye(units), [batch, 1])
    with tf.autodiff.ForwardAccumulator(primals=h0_rep, tangents=tangents) as acc:
        states = rnn(tf.repeat(x, units, axis=0), initial_state=h0_rep)
    columns = tf.reshape(acc.jvp(states), (batch, units, -1, units))  # [b, j, t, i]
    return tf.transpose(columns, (0, 2, 3, 1))  # [b, t, i, j]


def jacobian_one_tape(rnn, x, h0):
    """For reference: one eager batch_jacobian on all the states."""
    with tf.GradientTape() as tape:
        tape.watch(h0)
        states = rnn(x, initial_state=h0)
    return tape.batch_jacobian(states, h0)


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def main() -> int:
    tf.get_logger().setLevel("ERROR")  # eager batch_jacobian's "retracing" warnings
    keras.utils.set_random_seed(0)
    x = tf.random.normal((B, T, D))
    h0 = tf.random.uniform((B, H))
    rnn = keras.layers.SimpleRNN(H, return_sequences=True)
    rnn(x, initial_state=h0)  # build the weights

    steps = int(os.environ.get("BENCH_JACOBIAN_STEPS", T))
    steps = max(1, min(steps, T))

    jacobian_forward(rnn, x, h0)  # warm-up, untimed
    jacobian_per_step(rnn, x, h0, 1)  # warm-up, untimed
    runs = [timed(jacobian_forward, rnn, x, h0) for _ in range(3)]
    fast, fast_time = runs[0][0], statistics.median(t for _, t in runs)
    slow, slow_measured = timed(jacobian_per_step, rnn, x, h0, steps)
    slow_time = slow_measured * T / steps
    one, one_time = timed(jacobian_one_tape, rnn, x, h0)

    diff = float(tf.reduce_max(tf.abs(fast[:, :steps] - slow)))
    diff_one = float(tf.reduce_max(tf.abs(fast - one)))
    speedup = slow_time / fast_time
    loop_note = (f"all {T} steps" if steps == T else
                 f"{steps} of {T} steps timed ({slow_measured:.1f} s), extrapolated linearly to {T}")
    print(f"B={B}, T={T}, H={H}, input width {D}; Jacobian shape {tuple(fast.shape)}")
    print(f"  lesson method, forward mode eager:   {fast_time:8.3f} s  (median of 3)")
    print(f"  seed's loop, one tape per step:      {slow_time:8.3f} s  ({loop_note})")
    print(f"  for reference, one eager batch_jacobian: {one_time:.3f} s, max abs diff {diff_one:.1e}")
    print(f"jacobian speedup: {speedup:.1f}x (lesson method {fast_time:.2f} s vs per-step loop {slow_time:.1f} s), "
          f"max abs diff {diff:.0e} (goal >= {GOAL:.0f}x, diff <= {TOLERANCE:.0e})")
    return 0 if diff <= TOLERANCE and diff_one <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
