"""Repairs made on the script's one Keras optimizer: clipped for gradients that exploded, loss-scaled for gradients
that underflowed in float16.

Gradients that grew step by step until they overflowed (non-finite, how="grew": a learning rate too large for the
data's scale, a recurrent net's gain above 1): the optimizer clips each gradient's norm to 1, the usual guard against
exploding gradients, so no step can throw the weights far enough to overflow.

    optimizer = keras.optimizers.SGD(learning_rate=1.0)  →  keras.optimizers.SGD(learning_rate=1.0, clipnorm=1.0)
    model.compile(optimizer="sgd", …)                   →  model.compile(optimizer=tf.keras.optimizers.SGD(clipnorm=1.0), …)

Steps no larger than the learning rate still converge slowly when the data is far from unit scale; scaling the
inputs and targets, or a smaller learning rate, stays the by-hand remedy. Refused when the file makes no Keras
optimizer, more than one, or one already clipped: which of them to change, or how far, is a choice.

Gradients that underflowed to 0 on a float16 path (underflow, in a loop of the script's own: `fit` scales the loss
by itself under a mixed policy): the optimizer that applies them is wrapped in a LossScaleOptimizer, and the tape's
target is scaled by it inside the tape, which its apply_gradients undoes (Keras's recipe for custom loops):

    opt = keras.optimizers.Adam()       →  opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam())
        loss = loss_fn(y, model(x))        loss = loss_fn(y, model(x))
                                           scaled_loss = opt.scale_loss(loss)
    grads = tape.gradient(loss, …)      →  grads = tape.gradient(scaled_loss, …)

The gradients the call returns are then scaled too (the loss scale, 2**15 at first): what apply_gradients does
with them is unchanged. Refused unless the target is a name made inside the tape and one apply_gradients in the
same function takes the gradients, of an optimizer made once from a Keras class (a LossScaleOptimizer made
already, whose scale_loss was left out, gets only the scaled target).
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, called_name, fresh, root, scope_of
from gradtutor.explain.fix.source import Edit

CLIP = "clipnorm=1.0"
CLIPPED = ("clipnorm", "clipvalue", "global_clipnorm")
OPTIMIZERS = {"sgd": "SGD", "adam": "Adam", "rmsprop": "RMSprop", "adagrad": "Adagrad", "adadelta": "Adadelta",
              "adamax": "Adamax", "nadam": "Nadam", "adamw": "AdamW", "ftrl": "Ftrl", "lion": "Lion"}
SCALER = "LossScaleOptimizer"
KERAS_MODULES = ("keras", "optimizers", "mixed_precision")  # keras.optimizers.SGD, tf.optimizers.SGD, …


def clipped(c: Context) -> list[Edit]:
    """The edit clipping the file's one optimizer; NoRepair("grew") when there is not exactly one to clip."""
    found = [edit for node in ast.walk(c.source.tree) if (edit := _made(c, node) or _named(c, node)) is not None]
    if len(found) != 1:
        raise NoRepair("grew")
    return found


def loss_scaled(c: Context) -> list[Edit]:
    """The optimizer that applies this call's gradients wrapped in a LossScaleOptimizer, and the target scaled by it
    inside the tape; NoRepair("underflow") when the code is not of that form."""
    call, tape = c.gradient_call()
    target = call.args[0]
    block, _ = c.tape_block(tape)
    made = c.source.statement_at(c.broke)
    if not (isinstance(target, ast.Name) and isinstance(made, ast.Assign) and made in ast.walk(block)
            and any(isinstance(t, ast.Name) and t.id == target.id for t in made.targets)):
        raise NoRepair("underflow")
    applies = {node.func.value.id for node in ast.walk(scope_of(c, call)) if isinstance(node, ast.Call)
               and isinstance(node.func, ast.Attribute) and node.func.attr == "apply_gradients"
               and isinstance(node.func.value, ast.Name)}
    optimizer = _optimizer_made(c, applies.pop()) if len(applies) == 1 else None
    if optimizer is None:
        raise NoRepair("underflow")
    scaled = fresh(c, f"scaled_{target.id}")
    at = c.source.after_line(made.end_lineno)
    scale = f"{optimizer.targets[0].id}.scale_loss({target.id})"
    edits = [Edit(at, at, f"{c.source.indent(made.lineno)}{scaled} = {scale}{c.source.newline}"),
             Edit(*c.source.span(target), scaled)]
    if called_name(optimizer.value) == SCALER:  # made already, its scale_loss forgotten: only that is added
        return edits
    keras = c.source.module_alias("keras") or f"{c.tf}.keras"
    start, end = c.source.span(optimizer.value)
    return [Edit(start, start, f"{keras}.mixed_precision.{SCALER}("), Edit(end, end, ")"), *edits]


def _optimizer_made(c: Context, name: str) -> ast.Assign | None:
    """The one `NAME = …optimizers.Adam(…)` (or `…LossScaleOptimizer(…)`) of the file, or None."""
    found = [node for node in ast.walk(c.source.tree) if isinstance(node, ast.Assign) and len(node.targets) == 1
             and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name]
    if len(found) != 1 or not isinstance(found[0].value, ast.Call):
        return None
    value = found[0].value
    known = called_name(value) in OPTIMIZERS.values() or called_name(value) == SCALER
    return found[0] if known and _from_keras(c, value.func) else None


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
