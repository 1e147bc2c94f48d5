"""The repair of `leaves-tensorflow`: each NumPy step on the break line rewritten as the TensorFlow op, `.numpy()` and
`float(…)` around a tensor dropped, `model.predict(x)` (NumPy out) made `model(x)`; what NumPy's result was then
given (`.astype(…)`, `tf.constant(…)`) made a tensor's (`tf.cast`, the tensor itself). A NumPy loss written over
several lines is repaired a line a round: the re-run names the next line that leaves TensorFlow (verify.rounds).
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, Repair
from gradtutor.explain.fix.source import Edit, Source

NUMPY_TO_TF = {"mean": "reduce_mean", "sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min", "prod": "reduce_prod",
               "log": "math.log", "exp": "exp", "sqrt": "sqrt", "square": "square", "abs": "abs", "power": "pow",
               "maximum": "maximum", "minimum": "minimum", "tanh": "tanh", "stack": "stack", "multiply": "multiply",
               "add": "add", "subtract": "subtract", "divide": "divide", "negative": "negative",
               "array": "convert_to_tensor", "asarray": "convert_to_tensor", "where": "where", "clip": "clip_by_value",
               "matmul": "matmul", "reshape": "reshape", "transpose": "transpose", "expand_dims": "expand_dims",
               "squeeze": "squeeze", "std": "math.reduce_std", "var": "math.reduce_variance", "log1p": "math.log1p",
               "sin": "sin", "cos": "cos", "tan": "tan", "sinh": "sinh", "cosh": "cosh", "arctan": "atan",
               "arcsin": "asin", "arccos": "acos", "reciprocal": "math.reciprocal", "sign": "sign"}


def leaves_tensorflow(c: Context) -> Repair:
    """A NumPy step on the break line → the TensorFlow op; `.numpy()` / `float(…)` around a tensor → the tensor;
    `model.predict(x)` (NumPy out) → `model(x)`.

    The steps can nest (`float(np.sum(t.numpy()))`): the statement is rewritten one step at a
    time, innermost first, and replaced as a whole (its other lines stay as they were)."""
    statement = c.source.statement_at(c.broke)
    if isinstance(statement, ast.Return) and statement.value is not None:  # `return …` alone is not a module
        statement = statement.value
    if statement is None:
        raise NoRepair("leaves_tensorflow")
    text, row = c.source.code(statement), c.broke - statement.lineno + 1
    for _ in range(50):
        step = _numpy_step(c, text, row)
        if step is None:
            break
        text = step
    if text == c.source.code(statement):
        raise NoRepair("leaves_tensorflow")
    return Repair([Edit(*c.source.span(statement), text)], c.subject())


def _numpy_step(c: Context, text: str, row: int) -> str | None:
    """The statement's text with its innermost NumPy step on that row rewritten (None: there is none)."""
    piece = Source(text)
    calls = sorted((n for n in ast.walk(piece.tree) if isinstance(n, ast.Call) and n.lineno == row),
                   key=lambda n: len(piece.code(n)))
    for call in calls:
        func = call.func
        if (c.np and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == c.np
                and func.attr in NUMPY_TO_TF):
            start, end = piece.span(func)
            return text[:start] + f"{c.tf}.{NUMPY_TO_TF[func.attr]}" + text[end:]
        if isinstance(func, ast.Attribute) and func.attr == "predict" and call.args:
            start, end = piece.span(call)  # model.predict(x, verbose=0) returns NumPy; model(x) a tensor
            return text[:start] + f"{piece.code(func.value)}({piece.code(call.args[0])})" + text[end:]
        made_by_tf = isinstance(func, ast.Attribute) and piece.code(func.value).startswith(f"{c.tf}.")
        if made_by_tf and func.attr == "astype" and len(call.args) == 1:  # the NumPy method, on what is now a tensor
            start, end = piece.span(call)
            return text[:start] + f"{c.tf}.cast({piece.code(func.value)}, {piece.code(call.args[0])})" + text[end:]
        if (c.is_tf(call, "constant") and len(call.args) == 1 and not call.keywords
                and piece.code(call.args[0]).startswith(f"{c.tf}.")):
            kept = call.args[0]  # tf.constant(a TensorFlow step): the tensor itself (a constant of it fails when traced)
        elif isinstance(func, ast.Attribute) and func.attr == "numpy" and not call.args:
            kept = func.value  # t.numpy() → t
        elif isinstance(func, ast.Name) and func.id == "float" and len(call.args) == 1:
            kept = call.args[0]  # float(t) → t
        else:
            continue
        start, end = piece.span(call)
        return text[:start] + piece.code(kept) + text[end:]
    return None
