"""Lesson 2, indexing outside the tape: seeded inputs and reference gradients.

The classifier is the seed question's model shrunk to a few pixels: Flatten,
then a Dense layer with a softmax. Its sizes (batch, image side, classes) vary
with the seed, so an answer that hard-codes a shape or a class fails on some
seed. The regressor for `no_predict` is a two-layer MLP with a tanh.
"""
from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from gradtutor.course.references import Recipe, seed_weights


def _classifier(seed: int, height: int, width: int, classes: int) -> keras.Model:
    """The seed's model (Flatten → Dense softmax), built deterministically."""
    seed_weights(seed)  # apart from the seed the learner's code runs under
    inputs = keras.Input(shape=(height, width))
    flat = keras.layers.Flatten()(inputs)
    outputs = keras.layers.Dense(classes, activation="softmax")(flat)
    return keras.Model(inputs, outputs)


def _classifier_inputs(seed: int):
    """model, inp (a tf.Variable, as in the seed), the number of classes, and the rng."""
    rng = np.random.default_rng(seed)
    batch = int(rng.integers(1, 4))  # 1..3: the seed used a batch of 1
    height, width = (int(n) for n in rng.integers(3, 7, size=2))
    classes = int(rng.integers(3, 7))
    model = _classifier(seed, height, width, classes)
    # As in the seed: the input is a tf.Variable, so the tape watches it by itself.
    inp = tf.Variable(rng.random((batch, height, width)), dtype=tf.float32, name="input")
    return model, inp, classes, rng


# --- slice_inside -------------------------------------------------------------
def build_slice_inside(seed: int) -> dict:
    model, inp, _, _ = _classifier_inputs(seed)
    return {"model": model, "inp": inp}


def reference_slice_inside(model, inp):
    """d result[:, 0] / d inp, the slice taken inside the tape."""
    with tf.GradientTape() as tape:
        first = model(inp, training=False)[:, 0]
    return tape.gradient(first, inp)


def _gradient_of(model, inp, pick):
    """d pick(probs) / d inp: what an answer gets when it differentiates something else than the column asked."""
    with tf.GradientTape() as tape:
        picked = pick(model(inp, training=False))
    return tape.gradient(picked, inp)


# What learners differentiate instead of the class-0 column: the class next to it, a second softmax, each
# example's top class, class 0 of the first example only ([0, 0]), the log-probability.
SLICE_VARIANTS = {
    "next_class": lambda model, inp: _gradient_of(model, inp, lambda p: p[:, 1]),
    "softmax_twice": lambda model, inp: _gradient_of(model, inp, lambda p: tf.nn.softmax(p)[:, 0]),
    "top_class": lambda model, inp: _gradient_of(model, inp, lambda p: tf.reduce_max(p, axis=-1)),
    "first_example": lambda model, inp: _gradient_of(model, inp, lambda p: p[0, 0]),
    "log_probability": lambda model, inp: _gradient_of(model, inp, lambda p: tf.math.log(p[:, 0])),
}


# --- two_targets --------------------------------------------------------------
def build_two_targets(seed: int) -> dict:
    model, inp, classes, rng = _classifier_inputs(seed)
    i, j = (int(c) for c in rng.choice(classes, size=2, replace=False))
    if seed == 0:
        # The first visible seed asks for classes 0 and 1, as the notebook's
        # example does; the other seeds pick two distinct classes at random.
        i, j = 0, 1
    return {"model": model, "inp": inp, "i": i, "j": j}


def reference_two_targets(model, inp, i, j):
    """(d p_i / d inp, d p_j / d inp) from one persistent tape."""
    with tf.GradientTape(persistent=True) as tape:
        probs = model(inp, training=False)
        p_i = probs[:, i]
        p_j = probs[:, j]
    grads = (tape.gradient(p_i, inp), tape.gradient(p_j, inp))
    del tape
    return grads


def _pair_of(model, inp, pick_i, pick_j):
    return _gradient_of(model, inp, pick_i), _gradient_of(model, inp, pick_j)


# What learners return instead of (d p_i, d p_j): the two swapped, the gradient of p_i + p_j twice (a list of
# targets is summed), classes counted from 1 (i - 1 and j - 1, Python's -1 for class 0), a second softmax,
# the log-probabilities.
TARGETS_VARIANTS = {
    "swapped": lambda model, inp, i, j: _pair_of(model, inp, lambda p: p[:, j], lambda p: p[:, i]),
    "sum_of_both": lambda model, inp, i, j: _pair_of(model, inp, lambda p: p[:, i] + p[:, j],
                                                     lambda p: p[:, i] + p[:, j]),
    "one_based": lambda model, inp, i, j: _pair_of(model, inp, lambda p: p[:, i - 1], lambda p: p[:, j - 1]),
    "softmax_twice": lambda model, inp, i, j: _pair_of(model, inp, lambda p: tf.nn.softmax(p)[:, i],
                                                       lambda p: tf.nn.softmax(p)[:, j]),
    "log_probability": lambda model, inp, i, j: _pair_of(model, inp, lambda p: tf.math.log(p[:, i]),
                                                         lambda p: tf.math.log(p[:, j])),
}


# --- no_predict ---------------------------------------------------------------
def _regressor(seed: int, features: int, hidden: int, outputs: int) -> keras.Model:
    seed_weights(seed)  # apart from the seed the learner's code runs under
    return keras.Sequential(
        [
            keras.Input(shape=(features,)),
            keras.layers.Dense(hidden, activation="tanh"),
            keras.layers.Dense(outputs),
        ]
    )


def build_no_predict(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    batch = int(rng.integers(2, 6))  # at least 2, so a sum is not the mean
    features = int(rng.integers(2, 6))
    outputs = int(rng.integers(1, 4))
    model = _regressor(seed, features, 8, outputs)
    # x is a tf.constant: the tape must be told to watch it.
    x = tf.constant(rng.normal(size=(batch, features)), dtype=tf.float32)
    y = tf.constant(rng.normal(size=(batch, outputs)), dtype=tf.float32)
    return {"model": model, "x": x, "y": y}


def reference_no_predict(model, x, y):
    """d loss / d x for loss = mean((model(x) - y)**2) over every element."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_mean(tf.square(model(x, training=False) - y))
    return tape.gradient(loss, x)


def _loss_gradient(model, x, y, loss_of):
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_of(model(x, training=False) - y)
    return tape.gradient(loss, x)


# Another loss of the error e = model(x) - y: the square of its mean, the root of the mean squared error.
PREDICT_VARIANTS = {
    "square_of_mean": lambda model, x, y: _loss_gradient(model, x, y, lambda e: tf.square(tf.reduce_mean(e))),
    "rmse": lambda model, x, y: _loss_gradient(model, x, y, lambda e: tf.sqrt(tf.reduce_mean(tf.square(e)))),
}


EXERCISES = {
    "slice_inside": Recipe(build_slice_inside, reference_slice_inside, rtol=1e-4, atol=1e-6,
                             variants=SLICE_VARIANTS),
    "two_targets": Recipe(build_two_targets, reference_two_targets, rtol=1e-4, atol=1e-6,
                            variants=TARGETS_VARIANTS),
    "no_predict": Recipe(build_no_predict, reference_no_predict, rtol=1e-4, atol=1e-6, variants=PREDICT_VARIANTS),
}
