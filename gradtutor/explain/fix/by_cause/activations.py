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


# one unit's categorical losses → the binary one, which a one-unit sigmoid goes with
BINARY_LOSS = {"categorical_crossentropy": "binary_crossentropy", "sparse_categorical_crossentropy":
               "binary_crossentropy", "CategoricalCrossentropy": "BinaryCrossentropy",
               "SparseCategoricalCrossentropy": "BinaryCrossentropy"}


def one_unit_over_steps(c: Context) -> list[Edit]:
    """A softmax over the one unit of a sequence's scores (batch, steps, 1): attention weights, which belong over the
    steps (axis 1): `layers.Activation("softmax")` on the break line becomes `layers.Softmax(axis=1)`, a softmax
    call (`tf.nn.softmax(score)`) is given `axis=1`. NoRepair("pattern") for any other spelling."""
    for call in c.source.nodes_on(c.broke, ast.Call):
        func, args = call.func, call.args
        if isinstance(func, ast.Attribute) and func.attr == "Activation" and len(args) == 1 and \
                isinstance(args[0], ast.Constant) and args[0].value == "softmax":
            return [renamed(c.source, func, "Softmax"), Edit(*c.source.span(args[0]), "axis=1")]
        if (c.is_math(call, "softmax") or c.is_tf(call, "softmax")) and len(args) == 1 and not call.keywords:
            end = c.source.span(args[0])[1]
            return [Edit(end, end, ", axis=1")]
    raise NoRepair("pattern")


def one_unit_sigmoid(c: Context) -> list[Edit]:
    """A softmax over one unit (always 1): the layer's `activation="softmax"` on the break line made "sigmoid", the
    output's shape and the labels kept as they are; a categorical loss the script compiles with made binary (its
    value over one unit was 0 whatever the model gave). NoRepair("pattern") when the line gives no such string."""
    edits = [restrung(c.source, keyword.value, "sigmoid") for call in c.source.nodes_on(c.broke, ast.Call)
             for keyword in call.keywords if keyword.arg == "activation" and keyword.value.lineno == c.broke
             and isinstance(keyword.value, ast.Constant) and keyword.value.value == "softmax"]
    if len(edits) != 1:
        raise NoRepair("pattern")
    compiles = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "compile"]
    for keyword in (k for call in compiles[:1] if len(compiles) == 1 for k in call.keywords if k.arg == "loss"):
        loss = keyword.value.func if isinstance(keyword.value, ast.Call) else keyword.value
        if isinstance(loss, ast.Constant) and loss.value in BINARY_LOSS:
            edits.append(restrung(c.source, loss, BINARY_LOSS[loss.value]))
        elif isinstance(loss, ast.Attribute) and loss.attr in BINARY_LOSS:
            edits.append(renamed(c.source, loss, BINARY_LOSS[loss.attr]))
    return edits


def top_score(c: Context, target: ast.Name, block: ast.With) -> list[Edit] | None:
    """A target made in the tape's block as the sum (or mean) of a softmax's every output (`score =
    tf.reduce_sum(output)`, always the batch's size): the sum of each row's top score instead, `tf.reduce_max(output,
    axis=-1)`, whose gradient is the one a saliency map means. None when the target is not made so."""
    made = [s for s in block.body if isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and s.targets[0].id == target.id]
    value = made[-1].value if made else None
    if not (c.is_math(value, "reduce_sum", "reduce_mean") and len(value.args) == 1 and not value.keywords):
        return None
    return [Edit(*c.source.span(value), f"{c.tf}.reduce_max({c.source.code(value.args[0])}, axis=-1)")]
