"""Lesson 4: stateful RNNs, and dh_t/dh_0 for every t.

Every exercise gets a small Keras 3 ``SimpleRNN(return_sequences=True)``
already built (called once), a float32 input sequence and a float32
``tf.constant`` initial state h0 that the learner has to watch. Shapes vary
with the seed (B 2-4, T 3-8, D 2-3, H 3-6) so an answer hard-wired to one shape
fails.
"""
from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from gradtutor.course.references import Recipe, seed_weights


def _sizes(rng, t_low=3, t_high=8):
    batch = int(rng.integers(2, 5))
    steps = int(rng.integers(t_low, t_high + 1))
    features = int(rng.integers(2, 4))
    units = int(rng.integers(3, 7))
    return batch, steps, features, units


def _inputs(rng, batch, steps, features, units):
    x = tf.constant(rng.normal(size=(batch, steps, features)).astype(np.float32))
    h0 = tf.constant(rng.uniform(-1.0, 1.0, size=(batch, units)).astype(np.float32))
    return x, h0


def _layer(seed, units, x, *, stateful=False):
    seed_weights(seed)  # apart from the seed the learner's code runs under
    rnn = keras.layers.SimpleRNN(units, return_sequences=True, stateful=stateful)
    rnn(x)  # builds the weights; a stateful layer now also holds a non-zero state
    return rnn


# -- fix_stateful -------------------------------------------------------------
def build_fix_stateful(seed):
    rng = np.random.default_rng(seed)
    batch, steps, features, units = _sizes(rng, 3, 5)
    x1, h0 = _inputs(rng, batch, steps, features, units)
    x2 = tf.constant(rng.normal(size=(batch, steps, features)).astype(np.float32))
    rnn = _layer(seed, units, x2, stateful=True)
    return {"rnn": rnn, "x1": x1, "x2": x2, "h0": h0}


def reference_fix_stateful(rnn, x1, x2, h0):
    """d sum(h_last of chunk 2) / d h0, through both chunks: (B, H)."""
    with tf.GradientTape() as tape:
        tape.watch(h0)
        out1 = rnn(x1, initial_state=h0)
        out2 = rnn(x2, initial_state=out1[:, -1, :])  # explicit: the tape sees the link
        last = out2[:, -1, :]
    return tape.gradient(last, h0)


def _last_state_gradient(rnn, x1, x2, h0, start, target):
    """d sum(target(out1, out2)) / d h0 where chunk 2 starts from start(out1, h0): a fix_stateful answer that
    differentiates another target, or hands chunk 2 another state."""
    with tf.GradientTape() as tape:
        tape.watch(h0)
        out1 = rnn(x1, initial_state=h0)
        out2 = rnn(x2, initial_state=start(out1, h0))
        picked = target(out1, out2)
    return tape.gradient(picked, h0)


def _chunk1_only(rnn, x1, x2, h0):
    """d sum(h_last of chunk 1) / d h0: chunk 2 never run."""
    with tf.GradientTape() as tape:
        tape.watch(h0)
        last = rnn(x1, initial_state=h0)[:, -1, :]
    return tape.gradient(last, h0)


_HANDED_OVER = lambda out1, h0: out1[:, -1, :]  # noqa: E731 - chunk 1's last state, as the reference hands it over
# What learners differentiate instead: chunk 2 restarted from h0, every state of chunk 2 (not its last), or
# chunk 1 alone.
STATEFUL_VARIANTS = {
    "restart_from_h0": lambda rnn, x1, x2, h0: _last_state_gradient(
        rnn, x1, x2, h0, lambda out1, h: h, lambda out1, out2: out2[:, -1, :]),
    "all_of_chunk2": lambda rnn, x1, x2, h0: _last_state_gradient(
        rnn, x1, x2, h0, _HANDED_OVER, lambda out1, out2: out2),
    "chunk1_only": _chunk1_only,
}


# -- all_steps_jacobian --------------------------------------------------------
def build_rnn_x_h0(seed):
    rng = np.random.default_rng(seed)
    batch, steps, features, units = _sizes(rng)
    x, h0 = _inputs(rng, batch, steps, features, units)
    rnn = _layer(seed, units, x)
    return {"rnn": rnn, "x": x, "h0": h0}


def reference_all_steps_jacobian(rnn, x, h0):
    """J[b, t, i, j] = d h_{t+1}[b, i] / d h0[b, j]: (B, T, H, H).

    By forward mode in one pass (each example repeated H times, copy j pushing
    the unit vector e_j): the same numbers as tape.batch_jacobian(states, h0),
    without the vectorising trace eager batch_jacobian pays on every call.
    """
    batch, units = h0.shape
    h0_rep = tf.repeat(h0, units, axis=0)
    tangents = tf.tile(tf.eye(units, dtype=h0.dtype), [batch, 1])
    with tf.autodiff.ForwardAccumulator(primals=h0_rep, tangents=tangents) as acc:
        states = rnn(tf.repeat(x, units, axis=0), initial_state=h0_rep)
    columns = tf.reshape(acc.jvp(states), (batch, units, -1, units))  # [b, j, t, i]
    return tf.transpose(columns, (0, 2, 3, 1))  # [b, t, i, j]


def _step_behind(rnn, x, h0):
    """dh_t/dh_0 where dh_{t+1}/dh_0 is asked: every step one behind (h0 itself first, the last step dropped)."""
    jac = reference_all_steps_jacobian(rnn, x, h0)
    eye = tf.broadcast_to(tf.eye(h0.shape[1], dtype=jac.dtype), (h0.shape[0], 1, h0.shape[1], h0.shape[1]))
    return tf.concat([eye, jac[:, :-1]], axis=1)


def _one_step(rnn, x, h0):
    """dh_(t+1)/dh_t where dh_(t+1)/dh_0 is asked: each step's own Jacobian through the cell, at the states the
    RNN went through (forward mode, one pass per step, each example repeated H times as in the reference)."""
    batch, units = h0.shape
    states = rnn(x, initial_state=h0)
    before = tf.concat([h0[:, None, :], states[:, :-1, :]], axis=1)  # h_t for every step t
    tangents = tf.tile(tf.eye(units, dtype=h0.dtype), [batch, 1])
    blocks = []
    for t in range(x.shape[1]):
        h_rep = tf.repeat(before[:, t, :], units, axis=0)
        with tf.autodiff.ForwardAccumulator(primals=h_rep, tangents=tangents) as acc:
            out, _ = rnn.cell(tf.repeat(x[:, t, :], units, axis=0), [h_rep])
        blocks.append(tf.transpose(tf.reshape(acc.jvp(out), (batch, units, units)), (0, 2, 1)))  # [b, i, j]
    return tf.stack(blocks, axis=1)


# -- jacobian_norms -----------------------------------------------------------
def reference_jacobian_norms(rnn, x, h0):
    """Frobenius norm of dh_t/dh_0, averaged over the batch: (T,)."""
    jac = reference_all_steps_jacobian(rnn, x, h0)
    return tf.reduce_mean(tf.norm(jac, ord="euclidean", axis=[2, 3]), axis=0)


def _norms_of(rnn, x, h0, norm):
    """norm(J) of every (example, step) block, averaged over the batch: another norm where Frobenius is asked."""
    return tf.reduce_mean(norm(reference_all_steps_jacobian(rnn, x, h0)), axis=0)


# What learners compute instead of the mean Frobenius norm: the largest singular value (ord=2, or an SVD), the
# squared norm (no square root), the norm of the batch-mean Jacobian (the mean taken first).
NORM_VARIANTS = {
    "spectral": lambda rnn, x, h0: _norms_of(rnn, x, h0, lambda jac: tf.linalg.svd(jac, compute_uv=False)[..., 0]),
    "squared": lambda rnn, x, h0: _norms_of(rnn, x, h0, lambda jac: tf.reduce_sum(tf.square(jac), axis=[2, 3])),
    "norm_of_mean": lambda rnn, x, h0: tf.norm(tf.reduce_mean(reference_all_steps_jacobian(rnn, x, h0), axis=0),
                                               axis=[1, 2]),
}


# -- all_steps_jvp --------------------------------------------------------------
def build_all_steps_jvp(seed):
    inputs = build_rnn_x_h0(seed)
    rng = np.random.default_rng(seed + 1)
    v = rng.normal(size=tuple(inputs["h0"].shape)).astype(np.float32)
    inputs["v"] = tf.constant(v)
    return inputs


def reference_all_steps_jvp(rnn, x, h0, v):
    """(dh_t/dh_0) @ v for every t, by forward mode: (B, T, H)."""
    with tf.autodiff.ForwardAccumulator(primals=h0, tangents=v) as acc:
        states = rnn(x, initial_state=h0)
    return acc.jvp(states)


def _jvp_step_behind(rnn, x, h0, v):
    """(dh_t/dh_0) v where (dh_(t+1)/dh_0) v is asked: v itself first, the last step dropped."""
    jvp = reference_all_steps_jvp(rnn, x, h0, v)
    return tf.concat([v[:, None, :], jvp[:, :-1]], axis=1)


# What learners push forward instead of J·v: vᵀJ (the Jacobian contracted over the output unit), every step one
# behind (the state list started with h0), a direction of ones, or v scaled to unit length.
JVP_VARIANTS = {
    "transposed_product": lambda rnn, x, h0, v: tf.einsum("btij,bi->btj", reference_all_steps_jacobian(rnn, x, h0), v),
    "step_behind": _jvp_step_behind,
    "ones_direction": lambda rnn, x, h0, v: reference_all_steps_jvp(rnn, x, h0, tf.ones_like(v)),
    "unit_direction": lambda rnn, x, h0, v: reference_all_steps_jvp(rnn, x, h0, v / tf.norm(v)),
}


# One tolerance for the lesson: every answer is a float32 RNN state gradient of the same size.
TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}
EXERCISES = {
    name: Recipe(build, reference, **TOLERANCE, variants=variants) for name, build, reference, variants in (
        ("fix_stateful", build_fix_stateful, reference_fix_stateful, STATEFUL_VARIANTS),
        ("all_steps_jacobian", build_rnn_x_h0, reference_all_steps_jacobian,
         {"step_behind": _step_behind, "one_step": _one_step}),
        ("jacobian_norms", build_rnn_x_h0, reference_jacobian_norms, NORM_VARIANTS),
        ("all_steps_jvp", build_all_steps_jvp, reference_all_steps_jvp, JVP_VARIANTS),
    )
}
