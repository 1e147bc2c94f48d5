"""Lesson 6 — The variables you are training.

Every exercise is about *which* variables a loss reaches and a training step
changes: a plain gradient-descent loop that must update its variables in place,
a Keras 3 layer whose weights must be tracked to appear in
`trainable_variables`, and a two-headed model whose loss uses only one head.
Shapes change with the seed, so an answer written for one shape fails on another.
"""
from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf

from gradtutor.course.references import Recipe, seed_weights

F32 = np.float32


# --- assign_in_place: train_linear(w0, b0, x, y, lr, steps) -----------------
def build_assign_in_place(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n, d, k = int(rng.integers(4, 9)), int(rng.integers(2, 5)), int(rng.integers(1, 4))
    w0, b0 = rng.normal(size=(d, k)).astype(F32), rng.normal(size=k).astype(F32)
    x, y = rng.normal(size=(n, d)).astype(F32), rng.normal(size=(n, k)).astype(F32)
    steps = int(rng.integers(3, 7))
    lr = float(rng.choice([0.05, 0.1, 0.2]))  # an answer with a hard-coded learning rate fails on some seeds
    return {"w0": tf.constant(w0), "b0": tf.constant(b0), "x": tf.constant(x), "y": tf.constant(y),
            "lr": lr, "steps": steps}


def reference_assign_in_place(w0, b0, x, y, lr, steps):
    """Plain gradient descent on mean((x @ w + b - y)**2): the weights after `steps` steps."""
    w, b = tf.Variable(w0), tf.Variable(b0)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((x @ w + b - y) ** 2)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(lr * dw)
        b.assign_sub(lr * db)
    return tf.convert_to_tensor(w), tf.convert_to_tensor(b)


def _descend(w0, b0, x, y, lr, steps, step_bias=True, direction=1.0):
    """The same loop with a learner's change: another number of steps, the bias left alone, or uphill."""
    w, b = tf.Variable(w0), tf.Variable(b0)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((x @ w + b - y) ** 2)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(direction * lr * dw)
        if step_bias:
            b.assign_sub(direction * lr * db)
    return tf.convert_to_tensor(w), tf.convert_to_tensor(b)


# What learners' loops end at instead: one step more or fewer (range(steps + 1), range(1, steps)), the bias
# never stepped, and steps up the gradient (assign_add, or a minus sign lost).
ASSIGN_VARIANTS = {
    "one_step_more": lambda w0, b0, x, y, lr, steps: _descend(w0, b0, x, y, lr, steps + 1),
    "one_step_less": lambda w0, b0, x, y, lr, steps: _descend(w0, b0, x, y, lr, steps - 1),
    "bias_frozen": lambda w0, b0, x, y, lr, steps: _descend(w0, b0, x, y, lr, steps, step_bias=False),
    "ascent": lambda w0, b0, x, y, lr, steps: _descend(w0, b0, x, y, lr, steps, direction=-1.0),
}


# --- tracked_weights: layer_gradients(kernel0, bias0, x) ----------------------
def build_tracked_weights(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n, d, k = (int(v) for v in rng.integers(2, 6, size=3))
    # small weights keep tanh away from saturation, so the gradient is not ~0
    return {
        "kernel0": (0.5 * rng.normal(size=(d, k))).astype(F32),
        "bias0": (0.5 * rng.normal(size=k)).astype(F32),
        "x": tf.constant(rng.normal(size=(n, d)).astype(F32)),
    }


def reference_tracked_weights(kernel0, bias0, x):
    """(dloss/dkernel, dloss/dbias) for loss = sum(tanh(x @ kernel + bias))."""
    kernel, bias = tf.Variable(kernel0), tf.Variable(bias0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.tanh(x @ kernel + bias))
    dkernel, dbias = tape.gradient(loss, [kernel, bias])
    return dkernel, dbias


def _affine_gradients(kernel0, bias0, x, loss_of):
    """(dloss/dkernel, dloss/dbias) for another loss of the layer's output, or other starting weights."""
    kernel, bias = tf.Variable(kernel0), tf.Variable(bias0)
    with tf.GradientTape() as tape:
        loss = loss_of(x @ kernel + bias)
    dkernel, dbias = tape.gradient(loss, [kernel, bias])
    return dkernel, dbias


# What learners differentiate instead: tanh twice (once in call(), once in the loss), no tanh at all, and
# the bias started at the tutorials' zeros instead of bias0.
TRACKED_VARIANTS = {
    "tanh_twice": lambda kernel0, bias0, x: _affine_gradients(
        kernel0, bias0, x, lambda out: tf.reduce_sum(tf.tanh(tf.tanh(out)))),
    "no_tanh": lambda kernel0, bias0, x: _affine_gradients(kernel0, bias0, x, tf.reduce_sum),
    "bias_zero": lambda kernel0, bias0, x: _affine_gradients(
        kernel0, 0.0 * bias0, x, lambda out: tf.reduce_sum(tf.tanh(out))),
}


# --- unused_head: head_gradients(model, x, y) ----------------------------------
def build_unused_head(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n, d, h, k = int(rng.integers(3, 7)), int(rng.integers(2, 5)), int(rng.integers(3, 6)), int(rng.integers(2, 4))
    seed_weights(seed)  # apart from the seed the learner's code runs under
    inputs = keras.Input(shape=(d,))
    trunk = keras.layers.Dense(h, activation="tanh", name="trunk")(inputs)
    main = keras.layers.Dense(1, name="main")(trunk)
    aux = keras.layers.Dense(k, name="aux")(trunk)
    model = keras.Model(inputs, [main, aux])
    # non-zero biases: a zero-initialised bias would make its gradient look special
    model.set_weights([(w + 0.3 * rng.normal(size=w.shape)).astype(F32) for w in model.get_weights()])
    return {
        "model": model,
        "x": tf.constant(rng.normal(size=(n, d)).astype(F32)),
        "y": tf.constant(rng.normal(size=(n, 1)).astype(F32)),
    }


def reference_unused_head(model, x, y):
    """Gradients of mean((main - y)**2) for every trainable variable, zeros where the loss does not reach."""
    with tf.GradientTape() as tape:
        main, _ = model(x)
        loss = tf.reduce_mean((main - y) ** 2)
    # the tf.Variable inside each keras.Variable: with a keras.Variable source, ZERO raises AttributeError
    sources = [v.value for v in model.trainable_variables]
    return tuple(tape.gradient(loss, sources, unconnected_gradients=tf.UnconnectedGradients.ZERO))


def _aux_head(model, x, y):
    """The second output's error against y (an (n, k) head minus (n, 1) targets broadcasts), zeros elsewhere."""
    with tf.GradientTape() as tape:
        _, aux = model(x)
        loss = tf.reduce_mean((aux - y) ** 2)
    sources = [v.value for v in model.trainable_variables]
    return tuple(tape.gradient(loss, sources, unconnected_gradients=tf.UnconnectedGradients.ZERO))


EXERCISES = {
    "assign_in_place": Recipe(build_assign_in_place, reference_assign_in_place, rtol=1e-4, atol=1e-5,
                                variants=ASSIGN_VARIANTS),
    "tracked_weights": Recipe(build_tracked_weights, reference_tracked_weights, rtol=1e-4, atol=1e-5,
                                variants=TRACKED_VARIANTS),
    # what learners differentiate instead: the other head's error
    "unused_head": Recipe(build_unused_head, reference_unused_head, rtol=1e-4, atol=1e-5,
                            variants={"aux_head": _aux_head}),
}
