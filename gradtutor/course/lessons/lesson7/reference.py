"""Lesson 7, NaN and vanishing gradients: seeded inputs and reference gradients.

Every input is a float32 ``tf.constant`` (so the learner has to watch it), and
every shape changes with the seed. Each builder plants the points where a naive
answer breaks: rows with a_i == b_i exactly (a distance of 0, where sqrt's
derivative is infinite), exact zeros and negatives under a log, and logits so
large that their sigmoid rounds to exactly 0 or 1 in float32. The last exercise
gets a small sigmoid MLP (3 to 6 hidden layers), whose first layers' gradients vanish.
"""
from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from gradtutor.course.references import Recipe, seed_weights

F32 = np.float32


# --- safe_distance: distance_gradient(a, b) ----------------------------------
# d/da of sum_i ||a_i - b_i||_2, taken as 0 on a row where a_i == b_i (the norm's kink).

def build_distance(seed: int) -> dict:
    rng = np.random.default_rng([seed, 71])
    rows, dims = int(rng.integers(4, 10)), int(rng.integers(2, 7))
    a = rng.normal(size=(rows, dims)).astype(F32)
    b = rng.normal(size=(rows, dims)).astype(F32)
    same = rng.choice(rows, size=int(rng.integers(1, 3)), replace=False)
    b[same] = a[same]  # a distance of exactly 0 on these rows
    a[same[0]] = b[same[0]] = 0.0  # and one pair at the origin itself
    return {"a": tf.constant(a), "b": tf.constant(b)}


def reference_distance(a, b):
    """The double tf.where: the sqrt only ever sees a safe, positive input."""
    with tf.GradientTape() as tape:
        tape.watch(a)
        sq = tf.reduce_sum(tf.square(a - b), axis=1)
        positive = sq > 0
        safe = tf.where(positive, sq, tf.ones_like(sq))
        dist = tf.where(positive, tf.sqrt(safe), tf.zeros_like(sq))
        total = tf.reduce_sum(dist)
    return tape.gradient(total, a)


def _distance_gradient_of(a, b, total_of):
    """d total_of(a, b) / d a: what an answer differentiates instead of the summed row distances."""
    with tf.GradientTape() as tape:
        tape.watch(a)
        total = total_of(a, b)
    return tape.gradient(total, a)


def _safe_sqrt(sq):
    positive = sq > 0
    return tf.where(positive, tf.sqrt(tf.where(positive, sq, tf.ones_like(sq))), tf.zeros_like(sq))


# What learners differentiate instead: one norm of the whole matrix a - b (tf.norm with no axis), the
# distance of every pair a_i, b_j (the pairwise-distance helper), and the squared distance (no sqrt).
DISTANCE_VARIANTS = {
    "one_norm": lambda a, b: _distance_gradient_of(a, b, lambda a, b: tf.norm(a - b)),
    "pairwise": lambda a, b: _distance_gradient_of(a, b, lambda a, b: tf.reduce_sum(_safe_sqrt(
        tf.reduce_sum((tf.expand_dims(a, 1) - tf.expand_dims(b, 0)) ** 2, 2)))),
    "squared": lambda a, b: _distance_gradient_of(a, b, lambda a, b: tf.reduce_sum(tf.square(a - b))),
}


# --- masked_log: masked_log_gradient(x) --------------------------------------
# d/dx of sum(where(x > 0, log(x), 0)): 1/x where x > 0, and 0 everywhere else.

def build_masked_log(seed: int) -> dict:
    rng = np.random.default_rng([seed, 72])
    shape = (int(rng.integers(2, 6)), int(rng.integers(3, 8)))
    x = rng.uniform(0.2, 4.0, size=shape).astype(F32)
    kind = rng.integers(0, 3, size=shape)  # 0: positive, 1: exactly zero, 2: negative
    kind.flat[0], kind.flat[1], kind.flat[-1] = 1, 0, 2  # at least one zero, one positive and one negative
    x[kind == 1] = 0.0
    x[kind == 2] *= -1.0
    return {"x": tf.constant(x)}


def reference_masked_log(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        positive = x > 0
        safe = tf.where(positive, x, tf.ones_like(x))
        y = tf.reduce_sum(tf.where(positive, tf.math.log(safe), tf.zeros_like(x)))
    return tape.gradient(y, x)


# What learners differentiate instead, in closed form: log of |x| where only the zeros are masked (the
# negatives keep 1/x), and log1p, the "safe" log, on the positives.
MASKED_LOG_VARIANTS = {
    "negatives_kept": lambda x: tf.math.divide_no_nan(tf.ones_like(x), x),
    "log1p": lambda x: tf.where(x > 0, 1.0 / (1.0 + tf.abs(x)), tf.zeros_like(x)),
}


# --- stable_bce: bce_gradient(logits, labels) --------------------------------
# d/dlogits of the mean binary crossentropy, (sigmoid(z) - y) / N.

def build_bce(seed: int) -> dict:
    rng = np.random.default_rng([seed, 73])
    shape = (int(rng.integers(2, 7)), int(rng.integers(2, 6)))
    logits = (3.0 * rng.normal(size=shape)).astype(F32)
    labels = rng.integers(0, 2, size=shape).astype(F32)
    # Confidently wrong entries: the sigmoid rounds to exactly 1 (z >= 17) or 0 (z <= -88)
    # in float32, while the true gradient there is about +1/N or -1/N.
    picks = rng.choice(logits.size, size=min(4, logits.size), replace=False)
    big = (float(rng.uniform(20.0, 60.0)), float(rng.uniform(90.0, 120.0)))
    logits.flat[picks[0]], labels.flat[picks[0]] = big[0], 0.0
    logits.flat[picks[1]], labels.flat[picks[1]] = -big[1], 1.0
    if len(picks) > 2:
        logits.flat[picks[2]], labels.flat[picks[2]] = -big[0], 1.0
        logits.flat[picks[3]], labels.flat[picks[3]] = big[1], 1.0  # confidently right: gradient ~0
    return {"logits": tf.constant(logits), "labels": tf.constant(labels)}


def reference_bce(logits, labels):
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    return tape.gradient(loss, logits)


def _bce_gradient_of(logits, labels, loss_of):
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = loss_of(logits, labels)
    return tape.gradient(loss, logits)


# What learners differentiate instead: the arguments reversed (Keras' (y_true, y_pred) order, tf.nn's
# positional one), so the labels are read as logits; and a sigmoid's output given to a loss from logits.
BCE_VARIANTS = {
    "swapped": lambda logits, labels: _bce_gradient_of(logits, labels, lambda z, y: tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=y))),
    "sigmoid_twice": lambda logits, labels: _bce_gradient_of(logits, labels, lambda z, y: tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=tf.sigmoid(z)))),
}


# --- layer_norms: layer_gradient_norms(model, x, y) --------------------------
# ||d loss / d kernel|| for every Dense layer, in order, for the mean squared error of model(x) against y.

def build_layer_norms(seed: int) -> dict:
    rng = np.random.default_rng([seed, 74])
    depth, width, features = int(rng.integers(3, 7)), int(rng.integers(4, 13)), int(rng.integers(3, 9))
    batch = int(rng.integers(8, 33))
    seed_weights(seed)  # apart from the seed the learner's code runs under
    hidden = [keras.layers.Dense(width, activation="sigmoid") for _ in range(depth)]
    model = keras.Sequential([keras.Input(shape=(features,))] + hidden + [keras.layers.Dense(1)])
    x = tf.constant(rng.normal(size=(batch, features)).astype(F32))
    y = tf.constant(rng.normal(size=(batch, 1)).astype(F32))
    return {"model": model, "x": x, "y": y}


def reference_layer_norms(model, x, y):
    kernels = [layer.kernel for layer in model.layers if isinstance(layer, keras.layers.Dense)]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=False) - y))
    return tf.stack([tf.norm(g) for g in tape.gradient(loss, kernels)])


def _norms_of(model, x, y, pick, measure=tf.norm):
    """measure(g) of the loss's gradient for each variable pick(layer) of every Dense layer, in pick's order."""
    chosen = pick([layer for layer in model.layers if isinstance(layer, keras.layers.Dense)])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=False) - y))
    return tf.stack([measure(g) for g in tape.gradient(loss, chosen)])


# What learners measure instead: the biases' gradients, the layers in backpropagation order (output first),
# the squared norm and the mean absolute entry.
LAYER_NORM_VARIANTS = {
    "bias_norms": lambda model, x, y: _norms_of(model, x, y, lambda dense: [d.bias for d in dense]),
    "reversed": lambda model, x, y: _norms_of(model, x, y, lambda dense: [d.kernel for d in reversed(dense)]),
    "squared_norm": lambda model, x, y: _norms_of(model, x, y, lambda dense: [d.kernel for d in dense],
                                                   lambda g: tf.reduce_sum(g ** 2)),
    "mean_abs": lambda model, x, y: _norms_of(model, x, y, lambda dense: [d.kernel for d in dense],
                                               lambda g: tf.reduce_mean(tf.abs(g))),
}


EXERCISES = {
    "safe_distance": Recipe(build_distance, reference_distance, rtol=1e-4, atol=1e-6, variants=DISTANCE_VARIANTS),
    "masked_log": Recipe(build_masked_log, reference_masked_log, rtol=1e-4, atol=1e-6, variants=MASKED_LOG_VARIANTS),
    "stable_bce": Recipe(build_bce, reference_bce, rtol=1e-4, atol=1e-6, variants=BCE_VARIANTS),
    "layer_norms": Recipe(build_layer_norms, reference_layer_norms, rtol=1e-4, atol=1e-8,
                            variants=LAYER_NORM_VARIANTS),
}
