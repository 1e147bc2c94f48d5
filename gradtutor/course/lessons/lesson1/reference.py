"""Lesson 1 — Constant vs Variable: what the tape watches.

Every exercise hands the learner something the tape does not watch on its own
(a tf.constant, a numpy array, a non-trainable tf.Variable, a non-trainable
Keras 3 variable) and asks for a gradient with respect to it. Shapes change
with the seed, so an answer written for one shape fails on another.
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf
import keras

from gradtutor.course.references import Recipe

F32 = np.float32


# --- watch_constant: grad_of_cube(x) ---------------------------------------
def build_watch_constant(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    return {"x": tf.constant(rng.normal(size=n).astype(F32))}


def reference_watch_constant(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x**3)
    return tape.gradient(y, x)


def _gradient_of(f, *sources):
    """d f(*sources) / d sources, every source watched: what an answer gets when it differentiates something else."""
    with tf.GradientTape() as tape:
        tape.watch(sources)
        y = f(*sources)
    grads = tape.gradient(y, list(sources))
    return grads[0] if len(grads) == 1 else tuple(grads)


# What learners compute instead of sum(x**3): the cube of the sum, the square kept from the guide's
# example, the largest cube alone (reduce_max).
CUBE_VARIANTS = {
    "cube_of_sum": lambda x: _gradient_of(lambda t: tf.reduce_sum(t) ** 3, x),
    "square": lambda x: _gradient_of(lambda t: tf.reduce_sum(t**2), x),
    "max_only": lambda x: _gradient_of(lambda t: tf.reduce_max(t**3), x),
}


# --- numpy_input: grad_from_numpy(x) ---------------------------------------
def build_numpy_input(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    rows, cols = (int(k) for k in rng.integers(2, 6, size=2))
    return {"x": rng.uniform(-3.0, 3.0, size=(rows, cols)).astype(F32)}


def reference_numpy_input(x):
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sin(x) * x)
    return tape.gradient(y, x)


# One of the two factors of sin(x) * x a constant to the tape (taken of the numpy array, or through .numpy() or
# np.sin): the gradient keeps only the other factor's term.
NUMPY_VARIANTS = {
    "sin_term_only": lambda x: tf.sin(tf.convert_to_tensor(x)),
    "cos_term_only": lambda x: tf.convert_to_tensor(x) * tf.cos(tf.convert_to_tensor(x)),
}


# --- frozen_weight: grads_with_frozen_weight(w, b, x) ----------------------
def build_frozen_weight(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n, d, k = (int(v) for v in rng.integers(2, 6, size=3))
    return {
        "w": tf.Variable(rng.normal(size=(d, k)).astype(F32), trainable=False, name="w"),
        "b": tf.Variable(rng.normal(size=k).astype(F32), name="b"),
        "x": tf.constant(rng.normal(size=(n, d)).astype(F32)),
    }


def reference_frozen_weight(w, b, x):
    with tf.GradientTape() as tape:
        tape.watch(w)
        loss = tf.reduce_sum((x @ w + b) ** 2)
    dw, db = tape.gradient(loss, [w, b])
    return dw, db


# Another loss of the residual r = x @ w + b: the square of its sum, its norm (the root of the sum of squares).
FROZEN_VARIANTS = {
    "square_of_sum": lambda w, b, x: _gradient_of(lambda w_, b_: tf.reduce_sum(x @ w_ + b_) ** 2, w, b),
    "norm": lambda w, b, x: _gradient_of(lambda w_, b_: tf.norm(x @ w_ + b_), w, b),
}


# --- keras_variable: grad_of_keras_variable(v, x) --------------------------
def build_keras_variable(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n, d, k = (int(m) for m in rng.integers(2, 6, size=3))
    # Small weights keep tanh away from saturation, so the gradient is not ~0.
    v = keras.Variable(0.3 * rng.normal(size=(d, k)).astype(F32), trainable=False, name="v")
    return {"v": v, "x": tf.constant(rng.normal(size=(n, d)).astype(F32))}


def reference_keras_variable(v, x):
    with tf.GradientTape() as tape:
        tape.watch(v.value)
        y = tf.reduce_sum(tf.tanh(x @ v))
    return tape.gradient(y, v.value)


# tanh applied to the sum instead of summed over every element.
KERAS_VARIANTS = {
    "tanh_of_sum": lambda v, x: _gradient_of(lambda t: tf.tanh(tf.reduce_sum(x @ t)), v.value),
}


EXERCISES = {
    "watch_constant": Recipe(build_watch_constant, reference_watch_constant, rtol=1e-4, atol=1e-6,
                               variants=CUBE_VARIANTS),
    "numpy_input": Recipe(build_numpy_input, reference_numpy_input, rtol=1e-4, atol=1e-5, variants=NUMPY_VARIANTS),
    "frozen_weight": Recipe(build_frozen_weight, reference_frozen_weight, rtol=1e-4, atol=1e-5,
                              variants=FROZEN_VARIANTS),
    "keras_variable": Recipe(build_keras_variable, reference_keras_variable, rtol=1e-4, atol=1e-5,
                               variants=KERAS_VARIANTS),
}
