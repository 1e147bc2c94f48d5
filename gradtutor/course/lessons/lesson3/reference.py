"""Lesson 3, softmax sums to one: seeded inputs and reference gradients.

Every exercise gets the seed's model, Input → Flatten → Dense(C, softmax), and
a random image batch of one, ``inp``: a ``tf.Variable`` of shape (1, H, W),
float32, as in the question. Seed 0 is the question's own shapes (28×28, 10
classes); the other seeds draw other sizes, so an answer that hard-codes 28 or
10 fails.
"""
from __future__ import annotations

import numpy as np
import tensorflow as tf
import keras

from gradtutor.course.references import Recipe, seed_weights


def _shapes(seed: int) -> tuple[int, int, int]:
    """(H, W, C): the image size and the number of classes for one seed."""
    if seed == 0:
        return 28, 28, 10
    rng = np.random.default_rng([seed, 3])
    height, width = (int(n) for n in rng.integers(6, 29, size=2))
    classes = int(rng.integers(4, 11))
    return height, width, classes


def make_model(seed: int) -> tuple[keras.Model, tf.Variable]:
    """The question's model and input, freshly built and seeded."""
    height, width, classes = _shapes(seed)
    seed_weights(seed)  # apart from the seed the learner's code runs under
    inputs = keras.layers.Input(shape=(height, width))
    flat = keras.layers.Flatten()(inputs)
    outputs = keras.layers.Dense(classes, activation="softmax")(flat)
    model = keras.Model(inputs, outputs)
    rng = np.random.default_rng(seed)
    inp = tf.Variable(rng.random((1, height, width)), dtype=tf.float32, name="input")
    return model, inp


def _pick_class(seed: int, classes: int, stream: int) -> int:
    return int(np.random.default_rng([seed, stream]).integers(classes))


# --- loss_gradient(model, inp, target) -------------------------------------

def build_loss(seed: int) -> dict:
    model, inp = make_model(seed)
    classes = model.output_shape[-1]
    target = tf.one_hot([_pick_class(seed, classes, stream=7)], classes, dtype=tf.float32)
    return {"model": model, "inp": inp, "target": target}


def reference_loss(model, inp, target):
    """d loss / d inp for the categorical crossentropy of model(inp) against target.

    Keras 3 detail: a Keras softmax output carries its logits (`_keras_logits`),
    and keras.losses.categorical_crossentropy uses them, so this is computed from
    the logits whatever `from_logits` says; a hand-written -sum(y log p) agrees
    within the tolerance.
    """
    with tf.GradientTape() as tape:
        probs = model(inp, training=False)
        loss = keras.losses.categorical_crossentropy(target, probs)
    return tape.gradient(loss, inp)


def _loss_gradient_of(model, inp, target, loss):
    """d loss(target, probs) / d inp: what a loss_gradient answer computes with another loss."""
    with tf.GradientTape() as tape:
        value = loss(target, model(inp, training=False))
    return tape.gradient(value, inp)


# What learners compute instead of the crossentropy's gradient: another loss on the same probabilities (the
# binary crossentropy, called as the learner calls it; a mean squared error), or FGSM's step direction, the
# sign of the right gradient.
LOSS_VARIANTS = {
    "binary_crossentropy": lambda model, inp, target: _loss_gradient_of(model, inp, target,
                                                                        keras.losses.binary_crossentropy),
    "squared_error": lambda model, inp, target: _loss_gradient_of(
        model, inp, target, lambda y, p: tf.reduce_mean(tf.square(y - p), axis=-1)),
    "signed_gradient": lambda model, inp, target: tf.sign(reference_loss(model, inp, target)),
}


# --- class_gradient(model, inp, k) ----------------------------------------

def build_class(seed: int) -> dict:
    model, inp = make_model(seed)
    return {"model": model, "inp": inp, "k": _pick_class(seed, model.output_shape[-1], stream=8)}


def reference_class(model, inp, k):
    """d p_k / d inp: the gradient of one class's probability."""
    with tf.GradientTape() as tape:
        probs = model(inp, training=False)
        p_k = probs[:, k]
    return tape.gradient(p_k, inp)


def _class_gradient_of(model, inp, pick):
    """d pick(probs) / d inp: what a class_gradient answer computes when it differentiates something else."""
    with tf.GradientTape() as tape:
        picked = pick(model(inp, training=False))
    return tape.gradient(picked, inp)


# What learners compute instead of p_k: the class next to k, a softmax applied again to the probabilities,
# the top probability, every class summed (zero: softmax sums to one is taught by the softmax-sum cause).
CLASS_VARIANTS = {
    "next_class": lambda model, inp, k: _class_gradient_of(model, inp, lambda p: p[:, (k + 1) % p.shape[-1]]),
    "previous_class": lambda model, inp, k: _class_gradient_of(model, inp, lambda p: p[:, (k - 1) % p.shape[-1]]),
    "softmax_twice": lambda model, inp, k: _class_gradient_of(model, inp, lambda p: tf.nn.softmax(p)[:, k]),
    "top_class": lambda model, inp, k: _class_gradient_of(model, inp, lambda p: tf.reduce_max(p, axis=-1)),
    "log_probability": lambda model, inp, k: _class_gradient_of(model, inp, lambda p: tf.math.log(p[:, k])),
    # a saliency map's post-processing kept (|grad|, grad × input), and the logit z_k where p_k is asked
    "absolute": lambda model, inp, k: tf.abs(reference_class(model, inp, k)),
    "times_input": lambda model, inp, k: inp * reference_class(model, inp, k),
    "logit": lambda model, inp, k: reference_logit(model, inp, k),
}


# --- logit_gradient(model, inp, k) ----------------------------------------

def build_logit(seed: int) -> dict:
    model, inp = make_model(seed)
    return {"model": model, "inp": inp, "k": _pick_class(seed, model.output_shape[-1], stream=9)}


def reference_logit(model, inp, k):
    """d z_k / d inp, where z is the last Dense layer's output before its softmax."""
    dense = model.layers[-1]
    with tf.GradientTape() as tape:
        flat = tf.reshape(inp, (inp.shape[0], -1))
        logits = tf.matmul(flat, dense.kernel) + dense.bias
        z_k = logits[:, k]
    return tape.gradient(z_k, inp)


def _flattened_pixel(model, inp, k):
    """d flat[:, k] / d inp, flat = Flatten(inp): model.layers[-2] is the Flatten layer, not the logits."""
    with tf.GradientTape() as tape:
        pixel = tf.reshape(inp, (inp.shape[0], -1))[:, k]
    return tape.gradient(pixel, inp)


def _all_logits(model, inp, k):
    """d sum(z) / d inp: every logit added up, class k not sliced."""
    dense = model.layers[-1]
    with tf.GradientTape() as tape:
        logits = tf.matmul(tf.reshape(inp, (inp.shape[0], -1)), dense.kernel) + dense.bias
    return tape.gradient(logits, inp)


# What learners compute instead of z_k: the probability p_k (the model's output, or the last layer called
# directly, which still applies its softmax), log p_k, all the logits at once, or the pixel k of the Flatten layer
# (model.layers[-2], taken for the layer before the softmax).
LOGIT_VARIANTS = {
    "probability": lambda model, inp, k: reference_class(model, inp, k),
    "log_probability": CLASS_VARIANTS["log_probability"],
    "all_logits": _all_logits,
    "flattened_pixel": _flattened_pixel,
}


# --- per_class_gradients(model, inp) --------------------------------------

def build_jacobian(seed: int) -> dict:
    model, inp = make_model(seed)
    return {"model": model, "inp": inp}


def reference_jacobian(model, inp):
    """Every class's gradient at once: shape (C, H, W), entry k = d p_k / d inp[0].

    One slice per class on a persistent tape, rather than tape.jacobian: the
    jacobian builds a new tf.function on every call, and after five calls in one
    process TensorFlow logs a retracing warning into the learner's check cell.
    """
    with tf.GradientTape(persistent=True) as tape:
        probs = model(inp, training=False)
        per_class = [probs[0, k] for k in range(probs.shape[-1])]
    grads = [tape.gradient(p_k, inp)[0] for p_k in per_class]
    del tape
    return tf.stack(grads)


def _jacobian_of(model, inp, pick):
    """Every class's gradient of pick(model, inp) (C values of the one example): shape (C, H, W)."""
    with tf.GradientTape(persistent=True) as tape:
        picked = pick(model, inp)
        per_class = [picked[0, k] for k in range(picked.shape[-1])]
    grads = [tape.gradient(value, inp)[0] for value in per_class]
    del tape
    return tf.stack(grads)


def _logits(model, inp):
    dense = model.layers[-1]
    return tf.matmul(tf.reshape(inp, (inp.shape[0], -1)), dense.kernel) + dense.bias


# What learners stack instead of d p_k / d inp: the logits' Jacobian (the softmax swapped for linear), the
# log-probabilities', the crossentropy's gradient with each class as the target (-d log p_k), |d p_k / d inp|.
JACOBIAN_VARIANTS = {
    "logit_jacobian": lambda model, inp: _jacobian_of(model, inp, _logits),
    "log_jacobian": lambda model, inp: _jacobian_of(model, inp, lambda m, x: tf.math.log(m(x, training=False))),
    "loss_per_class": lambda model, inp: -_jacobian_of(model, inp, lambda m, x: tf.math.log(m(x, training=False))),
    "absolute": lambda model, inp: tf.abs(reference_jacobian(model, inp)),
}


EXERCISES = {
    "loss_gradient": Recipe(build_loss, reference_loss, rtol=1e-4, atol=1e-6, variants=LOSS_VARIANTS),
    "class_gradient": Recipe(build_class, reference_class, rtol=1e-4, atol=1e-7, variants=CLASS_VARIANTS),
    "logit_gradient": Recipe(build_logit, reference_logit, rtol=1e-4, atol=1e-6, variants=LOGIT_VARIANTS),
    "per_class_gradients": Recipe(build_jacobian, reference_jacobian, rtol=1e-4, atol=1e-7,
                                    variants=JACOBIAN_VARIANTS),
}
