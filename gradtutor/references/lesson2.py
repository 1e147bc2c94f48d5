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

from gradtutor.references import Exercise


def _classifier(seed: int, height: int, width: int, classes: int) -> keras.Model:
    """The seed's model (Flatten → Dense softmax), built deterministically."""
    keras.utils.set_random_seed(seed)
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


# --- no_predict ---------------------------------------------------------------
def _regressor(seed: int, features: int, hidden: int, outputs: int) -> keras.Model:
    keras.utils.set_random_seed(seed)
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


EXERCISES = {
    "slice_inside": Exercise(build_slice_inside, reference_slice_inside, rtol=1e-4, atol=1e-6),
    "two_targets": Exercise(build_two_targets, reference_two_targets, rtol=1e-4, atol=1e-6),
    "no_predict": Exercise(build_no_predict, reference_no_predict, rtol=1e-4, atol=1e-6),
}
