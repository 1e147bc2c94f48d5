"""Gradients that came back finite and not zero, but small, because a layer's activation sits flat (or its ReLUs died).

A sigmoid, tanh or softmax whose outputs sit at their limits (inputs or targets not scaled, weights started far too
large) has almost no slope there, and passes almost nothing back to the weights under it: the program trains, its
gradients are finite and not all zero, and its weights barely move. By the all-clear's own measure that is fine, so it
is looked for only where nothing else was found, and claimed only from what is measured: after the program, a Keras
model trained by fit or train_on_batch on arrays (fit_data.py kept their first rows) is run once more on them, with its
final weights, outside every recording, and a finding needs all of

- a model that does not fit those rows (a classifier right on fewer than LEARNED of them, a regression whose squared
  error is above half the targets' variance): a model that fits its data has small gradients because it is trained;
- a layer whose sigmoid, tanh or softmax has at least MOSTLY of its outputs within FLAT of a limit (slope there below
  1/250 of a sigmoid's peak);
- a kernel at or below that layer whose gradient's mean magnitude, on the same rows, is below SMALL of its weights'
  (a step of SGD moves it by less than a thousandth of its size times the learning rate);
- or, in place of the last two, a relu layer with at least DEAD of its units 0 on every row: a dead unit passes no
  gradient back, on these rows or any other like them, so its weights no longer change (a small XOR net's hidden
  layer).
"""
from __future__ import annotations

import contextlib

import numpy as np

from gradtutor.evidence import fit_data
from gradtutor.evidence.reading.unexplained import finding_at
from gradtutor.messages import say
from gradtutor.protocol import Cause, Symptom

FLAT = 1e-3  # an output this close to 0 or 1 (a tanh's to -1 or 1): a sigmoid's slope there is below 1e-3
MOSTLY = 0.8  # the share of a layer's outputs flat for the layer to be called flat
SMALL = 1e-3  # a kernel's mean gradient magnitude below this share of its mean weight magnitude
LEARNED = 0.9  # a classifier right on this share of the rows it was trained on has learned
DEAD = 0.5  # a ReLU layer with at least this share of its units 0 on every row is dead
FLATTENING = ("sigmoid", "tanh", "softmax", "relu")


def findings(record) -> list[dict]:
    """One finding per trained model with a flat layer that starves the weights under it, or a dead one (see above)."""
    out = []
    for kept in record.trained.values():
        found = None
        with contextlib.suppress(Exception):  # a model that cannot be run again is only not looked into
            x, y = fit_data.first_rows(kept)
            found = _flat_layer(kept.model, x, y)
        if found is not None and kept.frame is not None:
            out.append(_finding(record, kept.call, kept.frame, fit_data.rows(x), *found))
    return out


def _flat_layer(model, x, y):
    """(cause, the layer, the message's key, what it says) of the top layer that starves the weights under it, or
    None."""
    import tensorflow as tf

    # Keras's own layers keep their activation as an attribute of their own (an RNN's is its cell's: left out)
    layers = [layer for layer in model._flatten_layers(include_self=False)
              if getattr(vars(layer).get("activation"), "__name__", None) in FLATTENING]
    if not layers:
        return None
    outputs, originals = {}, {id(layer): layer.activation for layer in layers}
    try:
        for layer in layers:
            layer.activation = _keeping_output(originals[id(layer)], outputs, id(layer))
        with tf.GradientTape() as tape:
            prediction = model(x, training=False)
            compute = getattr(model, "_compute_loss", None) or model.compute_loss
            loss = compute(x, y, prediction, None, training=False) if compute.__name__ == "_compute_loss" \
                else compute(x, y, prediction)
        weights = model.trainable_variables
        gradients = tape.gradient(loss, weights)
    finally:
        for layer in layers:
            layer.activation = originals[id(layer)]
    final = np.asarray(prediction)
    outputs = {key: np.asarray(out) for key, out in outputs.items()}
    last = next((layer for layer in layers if outputs.get(id(layer)) is not None
                 and outputs[id(layer)].shape == final.shape and np.allclose(outputs[id(layer)], final)), None)
    if _learned(last.activation.__name__ if last is not None else None, final, y) is not False:
        return None  # a model that fits its data (or whose fit cannot be told) is not stuck, however flat
    order = {id(layer): index for index, layer in enumerate(model._flatten_layers(include_self=False))}
    for layer in sorted(layers, key=lambda one: -order.get(id(one), 0)):  # the top flat layer first
        name, out = layer.activation.__name__, outputs.get(id(layer))
        if out is not None and name == "relu" and out.ndim >= 2:  # a unit 0 for every row passes nothing back, ever
            dead = (out.reshape(-1, out.shape[-1]) == 0).all(axis=0)
            if dead.mean() >= DEAD:
                return Cause.DEAD_RELU, layer, "dead", {"activation": name, "dead": int(dead.sum()),
                                                        "units": dead.size}
            continue
        flat = _flat(name, out) if out is not None else None
        if flat is None or flat.mean() < MOSTLY:
            continue
        below = {id(w) for one in model._flatten_layers(include_self=False)
                 if order.get(id(one), 0) <= order[id(layer)] for w in one.trainable_weights}
        starved = _starved([(w, g) for w, g in zip(weights, gradients) if id(w) in below and len(w.shape) >= 2])
        if starved is not None:
            return Cause.SATURATION, layer, "flat", {"activation": name, "share": f"{flat.mean():.0%}",
                                                     "kernel": starved[0], "ratio": f"{starved[1]:.1e}"}
    return None


def _keeping_output(activation, outputs, key):
    def run(*args, **kwargs):
        outputs[key] = activation(*args, **kwargs)
        return outputs[key]

    run.__name__ = activation.__name__
    return run


def _flat(name: str, out: np.ndarray) -> np.ndarray:
    """Per output: is it within FLAT of a limit? (A softmax's row counts by its largest entry.)"""
    if name == "tanh":
        return 1 - np.abs(out) <= 2 * FLAT  # tanh's slope 1 - t² is below 4e-3 there
    if name == "softmax":
        return 1 - out.max(axis=-1) <= FLAT
    return np.minimum(out, 1 - out) <= FLAT


def _learned(activation, final: np.ndarray, y) -> bool | None:
    """Does the model fit the rows it was trained on? A classifier (a softmax or sigmoid output) when it gets at least
    LEARNED of them right, any other model when its squared error is at most half the targets' variance; None when
    the targets do not match its output."""
    y = np.asarray(y)
    if activation == "softmax":
        labels = y.argmax(axis=-1) if y.shape == final.shape else y.reshape(final.shape[:-1])
        return bool((final.argmax(axis=-1) == labels).mean() >= LEARNED)
    if y.size != final.size:
        return None
    y = y.reshape(final.shape).astype(np.float64)
    if activation == "sigmoid":
        return bool((np.abs(final - y) < 0.5).mean() >= LEARNED)
    spread = float(y.var())
    return spread == 0 or float(np.mean((final - y) ** 2)) <= spread / 2


def _starved(pairs):
    """(name, share) of the kernel whose gradient is smallest for its size, if below SMALL; else None."""
    shares = []
    for weight, gradient in pairs:
        if gradient is None:
            continue
        size = float(np.mean(np.abs(weight.numpy())))
        step = float(np.mean(np.abs(np.asarray(getattr(gradient, "values", gradient)))))
        if size > 0 and np.isfinite(step):
            shares.append((step / size, str(getattr(weight, "path", None) or weight.name)))
    share, name = min(shares, default=(np.inf, ""))
    return (name, share) if share < SMALL else None


def _finding(record, call, frame, rows, cause, layer, key, said) -> dict:
    made = next((at for ref, at in record.graph.layers_made if ref() is layer), None)
    message = say(f"finding.unexplained.{key}", rows=rows, layer=layer.name, **said)
    return finding_at((frame[0], frame[1], call), cause, Symptom.TINY if key == "flat" else Symptom.VALUES,
                      made or frame, message, say(f"finding.unexplained.fix_{key}"), 1,
                      {"layer": layer.name, **{k: str(v) for k, v in said.items()}})
