"""Lesson 5, steps with no slope: seeded inputs and reference gradients.

Three exercises, each about a step that has no useful slope and what to
differentiate instead:

* ``soft_argmax``: the gradient of a soft argmax, the expected index under
  softmax(logits / temperature), with respect to the logits;
* ``straight_through``: the gradient of a loss through weights rounded to a
  grid, with the straight-through estimator ``w + tf.stop_gradient(q - w)``;
* ``numpy_gradient``: the gradient of ``sum(w * softplus(x))`` where softplus
  is computed by NumPy inside ``tf.numpy_function``, and ``tf.custom_gradient``
  supplies its derivative, the sigmoid.

Shapes (batch, classes, features, examples) and the temperature and grid step
change with the seed, so an answer written for one input fails on another.
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf

from gradtutor.course.references import Recipe

F32 = np.float32


# --- soft_argmax: soft_argmax_gradient(logits, temperature) -------------------

def build_soft_argmax(seed: int) -> dict:
    rng = np.random.default_rng([seed, 51])
    batch, classes = (3, 5) if seed == 0 else (int(rng.integers(2, 6)), int(rng.integers(3, 9)))
    temperature = 0.5 if seed == 0 else float(rng.choice([0.25, 0.5, 0.75, 2.0]))
    logits = rng.normal(scale=1.5, size=(batch, classes)).astype(F32)
    return {"logits": tf.constant(logits), "temperature": temperature}


def reference_soft_argmax(logits, temperature):
    """d/d logits of sum_b sum_i i * softmax(logits[b] / temperature)_i: shape (B, C).

    Computed in float64 and cast back: on a peaked row the gradient at the top class is a small
    difference of large terms, and float32 gets it wrong by up to ~5e-6 (measured on 3000 random
    seeds), so a float32 reference would be off by as much as any float32 answer is.
    """
    exact = tf.cast(logits, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(exact)
        probs = tf.nn.softmax(exact / temperature, axis=-1)
        index = tf.range(exact.shape[-1], dtype=exact.dtype)
        soft_index = tf.reduce_sum(probs * index, axis=-1)
    return tf.cast(tape.gradient(soft_index, exact), logits.dtype)


def _soft_argmax_of(logits, temperature, soft):
    """d/d logits of sum(soft(logits)): what an answer computes when it differentiates something else.

    In float64 like the reference, so a float32 answer equals it as closely as it equals the reference.
    """
    exact = tf.cast(logits, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(exact)
        target = tf.reduce_sum(soft(exact))
    return tf.cast(tape.gradient(target, exact), logits.dtype)


def _expected_index(probs):
    return tf.reduce_sum(probs * tf.range(probs.shape[-1], dtype=probs.dtype), axis=-1)


# What learners compute instead of the soft argmax: the temperature left out, multiplying, or dividing the
# result after the softmax; a second softmax; the top probability or the top scaled logit (both a max where
# a weighted sum is asked).
SOFT_ARGMAX_VARIANTS = {
    "no_temperature": lambda logits, t: _soft_argmax_of(
        logits, t, lambda z: _expected_index(tf.nn.softmax(z, axis=-1))),
    "temperature_times": lambda logits, t: _soft_argmax_of(
        logits, t, lambda z: _expected_index(tf.nn.softmax(z * t, axis=-1))),
    "temperature_after": lambda logits, t: _soft_argmax_of(
        logits, t, lambda z: _expected_index(tf.nn.softmax(z, axis=-1)) / t),
    "softmax_twice": lambda logits, t: _soft_argmax_of(
        logits, t, lambda z: _expected_index(tf.nn.softmax(tf.nn.softmax(z / t, axis=-1), axis=-1))),
    "top_probability": lambda logits, t: _soft_argmax_of(
        logits, t, lambda z: tf.reduce_max(tf.nn.softmax(z / t, axis=-1), axis=-1)),
    "max_logit": lambda logits, t: _soft_argmax_of(logits, t, lambda z: tf.reduce_max(z / t, axis=-1)),
}


# --- straight_through: ste_gradient(w, x, y, step) ----------------------------

def build_straight_through(seed: int) -> dict:
    rng = np.random.default_rng([seed, 52])
    examples, features = (8, 4) if seed == 0 else (int(rng.integers(5, 13)), int(rng.integers(2, 7)))
    step = 0.5 if seed == 0 else float(rng.choice([0.1, 0.25, 0.5]))
    w = rng.normal(size=features).astype(F32)
    x = rng.normal(size=(examples, features)).astype(F32)
    y = rng.normal(size=examples).astype(F32)
    return {"w": tf.Variable(w, name="w"), "x": tf.constant(x), "y": tf.constant(y), "step": step}


def reference_straight_through(w, x, y, step):
    """d loss / d w for loss = mean((x @ q - y)**2), q = step * round(w / step), straight through."""
    with tf.GradientTape() as tape:
        quantised = step * tf.round(w / step)
        q = w + tf.stop_gradient(quantised - w)  # forward: quantised; backward: identity
        pred = tf.linalg.matvec(x, q)
        loss = tf.reduce_mean(tf.square(pred - y))
    return tape.gradient(loss, w)


def _ste_of(w, x, y, step, quantise, predict=tf.linalg.matvec):
    """d loss / d w with another pass-through (quantise) or another prediction: what answers compute instead."""
    with tf.GradientTape() as tape:
        pred = predict(x, quantise(w))
        loss = tf.reduce_mean(tf.square(pred - y))
    return tape.gradient(loss, w)


def _through(w, rounded):
    """rounded going forward, the identity's slope going back."""
    return w + tf.stop_gradient(rounded - w)


# What learners compute instead: the loss of the weights as they are (nothing rounded), a round to whole
# numbers or down to the grid, the BinaryNet habit of passing the gradient only where |w| <= 1, and an
# (N, 1) column of predictions minus the (N,) targets, which broadcasts to every pair (N, N).
STRAIGHT_THROUGH_VARIANTS = {
    "unrounded": lambda w, x, y, step: _ste_of(w, x, y, step, lambda v: v),
    "whole_numbers": lambda w, x, y, step: _ste_of(w, x, y, step, lambda v: _through(v, tf.round(v))),
    "floor": lambda w, x, y, step: _ste_of(w, x, y, step, lambda v: _through(v, step * tf.floor(v / step))),
    "clipped": lambda w, x, y, step: _ste_of(
        w, x, y, step, lambda v: tf.clip_by_value(v, -1.0, 1.0)
        + tf.stop_gradient(step * tf.round(v / step) - tf.clip_by_value(v, -1.0, 1.0))),
    "broadcast_pairs": lambda w, x, y, step: _ste_of(
        w, x, y, step, lambda v: _through(v, step * tf.round(v / step)),
        predict=lambda a, q: tf.matmul(a, q[:, None])),
}


# --- numpy_gradient: numpy_softplus_gradient(x, w) ----------------------------

def build_numpy_gradient(seed: int) -> dict:
    rng = np.random.default_rng([seed, 53])
    n = 6 if seed == 0 else int(rng.integers(3, 12))
    x = rng.normal(scale=2.0, size=n).astype(F32)
    w = rng.uniform(0.5, 2.0, size=n).astype(F32) * rng.choice([-1.0, 1.0], size=n).astype(F32)
    return {"x": tf.constant(x), "w": tf.constant(w)}


def reference_numpy_gradient(x, w):
    """d/dx of sum(w * softplus(x)): w * sigmoid(x), computed with TensorFlow's own softplus."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(w * tf.math.softplus(x))
    return tape.gradient(loss, x)


# What a grad function returns instead of upstream * sigmoid(x): no upstream (so w is lost), softplus itself,
# sigmoid of the output, sigmoid(-x) (the derivative worked out as 1 / (1 + e^x)), sigmoid's own derivative
# s * (1 - s), and w multiplied in again though upstream already carries it. Closed forms of x and w.
NUMPY_GRADIENT_VARIANTS = {
    "no_upstream": lambda x, w: tf.sigmoid(x),
    "softplus_itself": lambda x, w: w * tf.math.softplus(x),
    "at_output": lambda x, w: w * tf.sigmoid(tf.math.softplus(x)),
    "sigmoid_of_minus": lambda x, w: w * tf.sigmoid(-x),
    "sigmoid_derivative": lambda x, w: w * tf.sigmoid(x) * (1.0 - tf.sigmoid(x)),
    "w_twice": lambda x, w: w * w * tf.sigmoid(x),
}


EXERCISES = {
    # atol: 4x the worst float32-vs-float64 error of the reference itself on 3000 random seeds (5e-6),
    # so a correct float32 answer, which errs as much, still passes; `make sweep` checks both ways
    "soft_argmax": Recipe(build_soft_argmax, reference_soft_argmax, rtol=1e-4, atol=2e-5,
                            variants=SOFT_ARGMAX_VARIANTS),
    "straight_through": Recipe(build_straight_through, reference_straight_through, rtol=1e-4, atol=1e-5,
                                 variants=STRAIGHT_THROUGH_VARIANTS),
    "numpy_gradient": Recipe(build_numpy_gradient, reference_numpy_gradient, rtol=1e-4, atol=1e-6,
                               variants=NUMPY_GRADIENT_VARIANTS),
}
