"""The repair of `leaves-tensorflow` at a `tf.numpy_function` or `tf.py_function`: TensorFlow runs the function given
to it as Python, outside every tape, so no gradient flows through it. When that function is a `def` of the file used
only there, and every NumPy step in its body has a TensorFlow op of the same meaning, the body is rewritten with
those ops and the call made directly:

    loss = tf.numpy_function(np_hinge, [y, y_pred], tf.float32)  →  loss = np_hinge(y, y_pred)
    return np.maximum(0.0, 1 - a * b).mean().astype(np.float32)  →  return tf.cast(tf.reduce_mean(tf.maximum(…)), …)

A lambda given to it is rewritten and called where it stood: `(lambda t: tf.clip_by_value(t, -1.0, 1.0))(h)`.

A body with any other NumPy use (an np.random draw, indexing with np.argsort, a loop over an array's values) is left
for a rewrite by hand: the re-run and central differences judge what is written.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.by_cause.numpy_steps import NUMPY_TO_TF
from gradtutor.explain.fix.context import Context, NoRepair, Repair, root
from gradtutor.explain.fix.source import Edit, Source

WRAPPERS = ("numpy_function", "py_function")
METHODS = {"mean": "reduce_mean", "sum": "reduce_sum", "max": "reduce_max", "min": "reduce_min",
           "prod": "reduce_prod"}  # an array's own reductions
DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")


def numpy_function(c: Context) -> Repair | None:
    """The patch for the wrapper on the break line; None when the line has no such wrapper."""
    wrapper = next((n for n in c.source.nodes_on(c.broke, ast.Call) if c.is_tf(n, *WRAPPERS)), None)
    inside = next((n for n in c.source.tree.body if isinstance(n, ast.FunctionDef)
                   and n.body[0].lineno <= c.broke <= n.end_lineno), None)
    if wrapper is None and inside is not None:  # the break line is in the function it was given
        wrapper = next((n for n in ast.walk(c.source.tree) if c.is_tf(n, *WRAPPERS)
                        and isinstance(_argument(n, 0, "func"), ast.Name) and _argument(n, 0, "func").id == inside.name),
                       None)
    if wrapper is None:
        return None
    function, given = _argument(wrapper, 0, "func"), _argument(wrapper, 1, "inp")
    if not isinstance(given, (ast.List, ast.Tuple)) or c.np is None:
        raise NoRepair("leaves_tensorflow")
    arguments = ", ".join(c.source.code(e) for e in given.elts)
    if isinstance(function, ast.Lambda):  # called where it is: (lambda t: tf.clip_by_value(t, -1.0, 1.0))(h)
        text = _in_tensorflow(c, c.source.code(function), "")
        return Repair([Edit(*c.source.span(wrapper), f"({text})({arguments})")], c.subject())
    if not isinstance(function, ast.Name):
        raise NoRepair("leaves_tensorflow")
    defs = [n for n in c.source.tree.body if isinstance(n, ast.FunctionDef) and n.name == function.id]
    uses = [n for n in ast.walk(c.source.tree) if isinstance(n, ast.Name) and n.id == function.id]
    if len(defs) != 1 or len(uses) != 1 or defs[0].decorator_list or defs[0].body[0].lineno == defs[0].lineno:
        raise NoRepair("leaves_tensorflow")  # used elsewhere too, with NumPy values: rewriting it changes those
    body = defs[0].body
    start, end = c.source.line_start(body[0].lineno), c.source.span(body[-1])[1]
    text = _in_tensorflow(c, c.source.text[start:end], c.source.indent(body[0].lineno))
    call = f"{function.id}({arguments})"
    return Repair([Edit(start, end, text), Edit(*c.source.span(wrapper), call)], c.subject())


def _argument(call: ast.Call, position: int, keyword: str) -> ast.AST | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _in_tensorflow(c: Context, text: str, indent: str) -> str:
    """The body's text with each NumPy step rewritten, innermost first; NoRepair when NumPy is still used after."""
    lines = text.splitlines(keepends=True)
    if any(line.strip() and not line.startswith(indent) for line in lines[1:]):
        raise NoRepair("leaves_tensorflow")
    plain = "".join(line[len(indent):] if line.startswith(indent) else line for line in lines)
    for _ in range(200):
        step = _step(c, plain)
        if step is None:
            break
        plain = step
    if any(isinstance(n, ast.Name) and n.id == c.np for n in ast.walk(ast.parse(plain))):
        raise NoRepair("leaves_tensorflow")
    rewritten = plain.splitlines(keepends=True)
    return "".join((indent if line.strip() else "") + line for line in rewritten)


def _step(c: Context, text: str) -> str | None:
    """The text with its innermost NumPy step rewritten (None: there is none left that this module knows)."""
    piece = Source(text)
    nodes = sorted((n for n in ast.walk(piece.tree) if isinstance(n, (ast.Call, ast.Attribute))),
                   key=lambda n: len(piece.code(n)))
    for node in nodes:
        start, end = piece.span(node)
        if isinstance(node, ast.Attribute) and _is(node.value, c.np) and node.attr in DTYPES:
            return text[:start] + f"{c.tf}.{node.attr}" + text[end:]  # np.float32 as a dtype
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func, owner = node.func, node.func.value
        if _is(owner, c.np) and func.attr in NUMPY_TO_TF:
            head, tail = piece.span(func)
            return text[:head] + f"{c.tf}.{NUMPY_TO_TF[func.attr]}" + text[tail:]
        if _is(owner, c.np, c.tf) or isinstance(root(func), ast.Name) and root(func).id in (c.np, c.tf):
            continue
        arguments = [piece.code(a) for a in [*node.args, *node.keywords]]
        if func.attr in METHODS:
            return text[:start] + f"{c.tf}.{METHODS[func.attr]}({', '.join([piece.code(owner), *arguments])})" + \
                text[end:]
        if func.attr == "astype" and len(arguments) == 1:
            return text[:start] + f"{c.tf}.cast({piece.code(owner)}, {arguments[0]})" + text[end:]
        if func.attr == "numpy" and not arguments:
            return text[:start] + piece.code(owner) + text[end:]
    return None


def _is(node: ast.AST, *names: str | None) -> bool:
    return isinstance(node, ast.Name) and node.id in names
