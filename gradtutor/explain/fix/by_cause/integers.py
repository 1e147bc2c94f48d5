"""An integer path that starts at a variable made integer (a weight given int32 as its dtype, a tf.Variable made from
a Python int): the variable is made float32, the dtype every other weight has, so the tape can differentiate it.

    w = tf.Variable(2)                                   →  w = tf.Variable(2.0)
    self.add_weight(shape=(3,), dtype="int32")           →  self.add_weight(shape=(3,), dtype="float32")

Only a variable's making is rewritten: a cast to an integer, an argmax or an index in the path is a choice of model
(what to differentiate instead), so it keeps the by-hand reason. The re-run says whether the float variable's
gradient now reaches the target (integer data it meets must be cast too, by hand).
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, called_name, renamed, restrung
from gradtutor.explain.fix.source import Edit

MAKERS = ("Variable", "add_weight", "add_variable")
INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def floated(c: Context) -> list[Edit]:
    """The edits making every variable made on the break line float32; NoRepair("integer_path") when it makes none
    with an integer dtype or an integer initial value."""
    edits = []
    for call in c.source.nodes_on(c.broke, ast.Call):
        name = called_name(call)
        if name not in MAKERS or call.lineno > c.broke:
            continue
        dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
        if dtype is not None:
            edits += _dtype(c, dtype)
        elif name == "Variable" and call.args and not _counted(c, call):  # tf.Variable(2): the dtype of its value
            edits += _literal(c, call.args[0])
    if not edits:
        raise NoRepair("integer_path")
    return edits


def _counted(c: Context, call: ast.Call) -> bool:
    """Is the variable a counter (`self.counter = tf.Variable(0)`, then `self.counter.assign_add(1)`)? An integer is
    its right type: what is wrong is that it is trainable, which is a choice left by hand."""
    statement = c.source.parents.get(call)
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return False
    name = c.source.code(statement.targets[0])
    return any(isinstance(n, ast.Attribute) and n.attr in ("assign_add", "assign_sub", "assign")
               and c.source.code(n.value) == name for n in ast.walk(c.source.tree))


def _dtype(c: Context, value: ast.AST) -> list[Edit]:
    """`tf.int32` → `tf.float32`, `"int32"` → `"float32"`, `np.int64` → `np.float32` (the module as written)."""
    if isinstance(value, ast.Constant) and value.value in INTEGERS:
        return [restrung(c.source, value, "float32")]
    if isinstance(value, ast.Attribute) and value.attr in INTEGERS:
        return [renamed(c.source, value, "float32")]
    return []


def _literal(c: Context, value: ast.AST) -> list[Edit]:
    """Every int literal of the initial value written as a float (`2` → `2.0`), when all its numbers are ints."""
    numbers = [n for n in ast.walk(value) if isinstance(n, ast.Constant) and not isinstance(n.value, str)]
    shapes = (ast.Constant, ast.List, ast.Tuple, ast.UnaryOp, ast.USub, ast.Load)
    if not numbers or not all(type(n.value) is int for n in numbers) or not all(isinstance(n, shapes)
                                                                               for n in ast.walk(value)):
        return []
    return [Edit(*c.source.span(n), f"{n.value}.0") for n in numbers]
