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

from gradtutor.references import Exercise


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
    keras.utils.set_random_seed(seed)
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


# -- jacobian_norms -----------------------------------------------------------
def reference_jacobian_norms(rnn, x, h0):
    """Frobenius norm of dh_t/dh_0, averaged over the batch: (T,)."""
    jac = reference_all_steps_jacobian(rnn, x, h0)
    return tf.reduce_mean(tf.norm(jac, ord="euclidean", axis=[2, 3]), axis=0)


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


# One tolerance for the lesson: every answer is a float32 RNN state gradient of the same size.
TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}
EXERCISES = {
    name: Exercise(build, reference, **TOLERANCE) for name, build, reference in (
        ("fix_stateful", build_fix_stateful, reference_fix_stateful),
        ("all_steps_jacobian", build_rnn_x_h0, reference_all_steps_jacobian),
        ("jacobian_norms", build_rnn_x_h0, reference_jacobian_norms),
        ("all_steps_jvp", build_all_steps_jvp, reference_all_steps_jvp),
    )
}
EXERCISES["all_steps_jacobian"] = Exercise(build_rnn_x_h0, reference_all_steps_jacobian, **TOLERANCE,
                                           variants={"step_behind": _step_behind})
