"""Weights a Keras layer's `trainable = True` unfroze after a compiled training step had been traced without them.

A traced step (Model.fit's train function, a @tf.function that asks for `model.trainable_variables`) read the list
of trainable weights when it was traced: weights unfrozen later are not among its gradients until it is traced
again (Keras: `compile()` again, or `make_train_function(force=True)`), so they do not train, and every gradient it
does ask for comes back fine. Noted at the unfreezing: each weight's value then, and each compiled function that
asked for gradients, with its traces and calls so far; reading.subtle.unfrozen_untrained compares them with the
end of the run (a function that ran on without a new trace, read the weight, and left it unchanged).
"""
from __future__ import annotations

import weakref

import numpy as np

MAX_ELEMENTS = 1 << 22  # values kept at one unfreezing: a bigger layer's weights are not compared (nothing is said)
MAX_EVENTS = 64


class Unfrozen:
    """One weight made trainable again at the user's `frame`, its value then, and the compiled functions then."""

    __slots__ = ("weight", "handle", "frame", "value", "functions")

    def __init__(self, weight, frame, value, functions):
        self.weight, self.handle, self.frame, self.value = weakref.ref(weight), id(weight.handle), frame, value
        self.functions = functions  # [(function, its FunctionState, traces then, calls then)]

    def untrained_by(self):
        """The first function that asked for gradients before the unfreezing, ran again after it without a new
        trace, read this weight, and left it with the value it had: (function, calls since), or None."""
        weight = self.weight()
        if weight is None:
            return None
        try:
            same = np.array_equal(np.asarray(weight.numpy()), self.value)
        except Exception:  # noqa: BLE001 - a weight that cannot be read now: nothing is said
            return None
        for function, state, traced, calls in self.functions if same else ():
            if traces(function) == traced and state.calls > calls and self.handle in state.reads:
                return function, state.calls - calls
        return None


def frozen_weights(layer) -> list:
    """The layer's weights (its sublayers' too) that are not trainable now: read before `trainable = True`."""
    return [weight for weight in layer.weights if not getattr(weight, "trainable", True)]


def note(record, weights: list, frame) -> None:
    """After `trainable = True` at `frame`: those of `weights` (frozen before) now trainable, if a compiled function
    that asks for gradients has been traced already (else the next trace sees them, and nothing is frozen)."""
    tracing = record.graph.traced
    if tracing is None or frame is None or len(record.unfrozen) >= MAX_EVENTS:
        return
    functions = []
    for function in tracing.keep:
        state, traced = tracing.functions[id(function)], traces(function)
        if state.per_call and traced:
            functions.append((function, state, traced, state.calls))
    if not functions:
        return
    kept, noted = 0, {(event.handle, event.frame) for event in record.unfrozen}
    for weight in weights:  # a layer's setter sets its sublayers' too: each weight once per line
        handle = getattr(weight, "handle", None)
        if not getattr(weight, "trainable", False) or handle is None or (id(handle), frame) in noted:
            continue
        value = np.array(weight.numpy(), copy=True)
        kept += value.size
        if kept > MAX_ELEMENTS or len(record.unfrozen) >= MAX_EVENTS:
            return
        record.unfrozen.append(Unfrozen(weight, frame, value, functions))
        noted.add((id(handle), frame))


def traces(function) -> int | None:
    """How many times a tf.function has been traced (None: a Function without the count, not looked into)."""
    try:
        return function.experimental_get_tracing_count()
    except Exception:  # noqa: BLE001
        return None
