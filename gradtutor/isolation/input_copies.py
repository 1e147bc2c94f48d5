"""A call's inputs kept apart: fresh copies for each call, and a check that the call left them as they were.

An answer that changes what it was given (a model's weights, a variable's values, a layer
swapped) must not change the next call's inputs, and fails with `inputs-modified`.
"""
from __future__ import annotations

import numpy as np

from gradtutor.messages import say


def fresh(args: list) -> list:
    """Copies of a call's inputs, so an answer that changes what it was given cannot change the next call's."""
    import keras
    import tensorflow as tf

    copies = []
    for arg in args:
        if isinstance(arg, keras.Model):
            clone = keras.models.clone_model(arg)
            clone.set_weights(arg.get_weights())
            copies.append(clone)
        elif isinstance(arg, keras.layers.Layer) or not hasattr(arg, "dtype"):
            copies.append(arg)  # a layer carries its own state; the lesson's references reset it themselves
        elif isinstance(arg, keras.Variable):
            copies.append(keras.Variable(arg.numpy(), trainable=arg.trainable, name=arg.name))
        elif isinstance(arg, tf.Variable):
            copies.append(tf.Variable(arg.numpy(), trainable=arg.trainable, name=arg.name.split(":")[0]))
        else:
            copies.append(arg)  # tensors and arrays: immutable, or compared afterwards
    return copies


def snapshot(args) -> list:
    """Copies of every input's numbers (a model's weights, a variable's or tensor's values)."""
    return [_numbers(arg) for arg in args]


def changed(args, before: list) -> list[str]:
    """The inputs whose numbers, structure or layers differ from the snapshot."""
    found = []
    for index, (arg, old) in enumerate(zip(args, before)):
        new = _numbers(arg)
        if len(new) != len(old) or any(a.shape != b.shape or not np.array_equal(a, b, equal_nan=True)
                                       for a, b in zip(new, old)):
            found.append(say(f"check.input.{_kind(arg)}", index=index))
    return found


def _numbers(arg) -> list:
    import keras

    if isinstance(arg, keras.Model):
        layers = [np.array([hash((type(layer).__name__, str(getattr(layer, "activation", ""))))])
                  for layer in arg.layers]
        return [np.array(w) for w in arg.get_weights()] + layers
    if isinstance(arg, keras.layers.Layer):
        return [np.array(w) for w in arg.get_weights()] + [np.array([hash(str(getattr(arg, "activation", "")))])]
    try:
        return [np.array(arg)]
    except Exception:  # noqa: BLE001 - an input we cannot read is not compared
        return []


def _kind(arg) -> str:
    return "model" if hasattr(arg, "layers") else "layer" if hasattr(arg, "get_weights") else "tensor"
