"""Gradients that grew step by step until they overflowed (non-finite, how="grew": a learning rate too large for the
data's scale, a recurrent net's gain above 1): the script's one Keras optimizer clips each gradient's norm to 1,
the usual guard against exploding gradients, so no step can throw the weights far enough to overflow.

    optimizer = keras.optimizers.SGD(learning_rate=1.0)  →  keras.optimizers.SGD(learning_rate=1.0, clipnorm=1.0)
    model.compile(optimizer="sgd", …)                   →  model.compile(optimizer=tf.keras.optimizers.SGD(clipnorm=1.0), …)

Steps no larger than the learning rate still converge slowly when the data is far from unit scale; scaling the
inputs and targets, or a smaller learning rate, stays the by-hand remedy. Refused when the file makes no Keras
optimizer, more than one, or one already clipped: which of them to change, or how far, is a choice.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, called_name, root
from gradtutor.explain.fix.source import Edit

CLIP = "clipnorm=1.0"
CLIPPED = ("clipnorm", "clipvalue", "global_clipnorm")
OPTIMIZERS = {"sgd": "SGD", "adam": "Adam", "rmsprop": "RMSprop", "adagrad": "Adagrad", "adadelta": "Adadelta",
              "adamax": "Adamax", "nadam": "Nadam", "adamw": "AdamW", "ftrl": "Ftrl", "lion": "Lion"}
KERAS_MODULES = ("keras", "optimizers")  # keras.optimizers.SGD, tf.keras.optimizers.SGD, tf.optimizers.SGD


def clipped(c: Context) -> list[Edit]:
    """The edit clipping the file's one optimizer; NoRepair("grew") when there is not exactly one to clip."""
    found = [edit for node in ast.walk(c.source.tree) if (edit := _made(c, node) or _named(c, node)) is not None]
    if len(found) != 1:
        raise NoRepair("grew")
    return found


def _made(c: Context, node: ast.AST) -> Edit | None:
    """`…optimizers.SGD(…)` (or `SGD(…)` imported from Keras): `, clipnorm=1.0` before its closing parenthesis."""
    if not isinstance(node, ast.Call):
        return None
    if called_name(node) not in OPTIMIZERS.values() or not _from_keras(c, node.func):
        return None
    if any(keyword.arg in CLIPPED or keyword.arg is None for keyword in node.keywords):
        raise NoRepair("grew")  # already clipped (or given **kwargs that may clip): how far is a choice
    end = c.source.span(node)[1] - 1
    comma = ", " if node.args or node.keywords else ""
    return Edit(end, end, f"{comma}{CLIP}")


def _named(c: Context, node: ast.AST) -> Edit | None:
    """`compile(optimizer="sgd")` (or the string as compile's first argument): the class, made with the clip."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compile"):
        return None
    given = [k.value for k in node.keywords if k.arg == "optimizer"] + node.args[:1]
    for value in given:
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.lower() in OPTIMIZERS:
            made = f"{c.tf}.keras.optimizers.{OPTIMIZERS[value.value.lower()]}({CLIP})"
            return Edit(*c.source.span(value), made)
    return None


def _from_keras(c: Context, func: ast.AST) -> bool:
    """Is the optimizer class Keras's: reached through a `keras` or `optimizers` module, or imported from one?"""
    if isinstance(func, ast.Attribute):
        chain, node = [], func.value
        while isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            chain.append(node.id)
        return any(part in KERAS_MODULES for part in chain) or isinstance(root(func), ast.Name) and any(
            _imported(c, root(func).id, module) for module in KERAS_MODULES)
    return any(_imported(c, func.id, module) for module in KERAS_MODULES)


def _imported(c: Context, name: str, module: str) -> bool:
    """Was `name` imported from a module whose dotted path holds `module` (from keras.optimizers import SGD)?"""
    return any(isinstance(node, ast.ImportFrom) and module in (node.module or "").split(".")
               and any((alias.asname or alias.name) == name for alias in node.names)
               for node in ast.walk(c.source.tree))
