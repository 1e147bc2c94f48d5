"""Dead ReLUs (a layer's units give 0 for every input the step saw, so their weights get zero gradients): the ReLU on
the break line becomes a leaky ReLU, which passes a small slope where ReLU passes 0, so a unit no input turns on
still learns and can come back.

    Dense(16, activation="relu")  →  Dense(16, activation="leaky_relu")
    tf.nn.relu(h)                 →  tf.nn.leaky_relu(h)
    keras.layers.ReLU()           →  keras.layers.LeakyReLU()

This changes the model (a negative input now gives a small negative output, not 0); it is the usual remedy, and the
re-run says whether it was enough (a learning rate that threw the units off can throw leaky ones into NaN: then
the patch stays a suggestion). Lowering the learning rate or another initialisation stays the by-hand remedy.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, renamed, restrung
from gradtutor.explain.fix.source import Edit

RELU_FUNCTIONS = ("relu",)  # tf.nn.relu, keras.activations.relu, keras.ops.relu: each module has its leaky_relu
ACTIVATION_LAYERS = ("Activation",)  # keras.layers.Activation("relu")


def leaky(c: Context) -> list[Edit]:
    """The edits making every ReLU written on the break line leaky; NoRepair when the line names none this rewrites
    (a `relu` imported by name, a ReLU layer given its own arguments, a ReLU inside a function defined elsewhere)."""
    edits = []
    for call in c.source.nodes_on(c.broke, ast.Call):
        if call.lineno == c.broke:
            edits += _call(c, call)
        for keyword in call.keywords:
            if keyword.arg == "activation" and keyword.value.lineno == c.broke:
                edits += _named(c, keyword.value)
    if not edits:
        raise NoRepair("dead_relu")
    return sorted(set(edits), key=lambda edit: edit.start)


def _call(c: Context, call: ast.Call) -> list[Edit]:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return []
    if func.attr in RELU_FUNCTIONS and len(call.args) == 1 and not call.keywords:  # tf.nn.relu(h), ops.relu(h)
        return [renamed(c.source, func, "leaky_relu")]
    if func.attr == "ReLU" and not call.args and not call.keywords:  # a layer: keras.layers.ReLU()
        return [renamed(c.source, func, "LeakyReLU")]
    if func.attr in ACTIVATION_LAYERS and len(call.args) == 1:
        return _named(c, call.args[0])
    return []


def _named(c: Context, value: ast.AST) -> list[Edit]:
    """An activation given as "relu" or as the function tf.nn.relu / keras.activations.relu."""
    if isinstance(value, ast.Constant) and value.value == "relu":
        return [restrung(c.source, value, "leaky_relu")]
    if isinstance(value, ast.Attribute) and value.attr == "relu":
        return [renamed(c.source, value, "leaky_relu")]
    return []
