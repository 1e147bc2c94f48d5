"""Paths through discrete values, which carry no gradient.

An integer path that starts at a variable made integer (a weight given int32 as its dtype, a tf.Variable made from
a Python int): the variable is made float32, the dtype every other weight has, so the tape can differentiate it.

    w = tf.Variable(2)                                   →  w = tf.Variable(2.0)
    self.add_weight(shape=(3,), dtype="int32")           →  self.add_weight(shape=(3,), dtype="float32")

A rounding, a threshold or a one-hot argmax on the break line, whose slope is 0 or None everywhere: the
straight-through estimator, which keeps every value the program computes and lets the gradient pass as if the
step were the identity (how binarised and quantised networks train; the soft alternative, a loss on the
probabilities themselves, changes the values and stays by hand).

    tf.round(t)                                    →  t + tf.stop_gradient(tf.round(t) - t)
    tf.cast(s > 0.5, tf.float32)                   →  s + tf.stop_gradient(tf.cast(s > 0.5, tf.float32) - s)
    tf.one_hot(tf.argmax(p, axis=-1), classes)     →  p + tf.stop_gradient(tf.one_hot(…) - p)

An argmax used as an index, an integer cast or a comparison of two computed values is a choice of model (what to
differentiate instead) and keeps the by-hand reason. The re-run says whether the gradient now reaches the target.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import (Context, NoRepair, assigned, called_name, renamed, restrung,
                                           scope_of)
from gradtutor.explain.fix.source import Edit

ROUNDINGS = ("round", "floor", "ceil", "rint", "sign")  # tf.math's and keras.ops' names alike
COMPARISONS = ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "argmax", "argmin")
FLOATS = ("float16", "bfloat16", "float32", "float64")

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


def argmax_target(c: Context) -> list[Edit]:
    """A tape's target that is an argmax (`top = tf.argmax(p, axis=-1)`, Grad-CAM's class): the top class's score,
    `tf.reduce_max(p, axis=-1)`, whose gradient is the one meant (1 at the argmax). Only when the name is read by the
    gradient call alone: an argmax also used as an index keeps its integer."""
    try:
        call, _ = c.gradient_call()
    except NoRepair:  # no gradient call on the finding's line (fit's): not a target of the script's own
        raise NoRepair("no_repair") from None
    made = c.source.statement_at(c.broke)
    value = made.value if isinstance(made, ast.Assign) and len(made.targets) == 1 else None
    target = call.args[0]
    if not (c.is_tf(value, "argmax") and isinstance(made.targets[0], ast.Name) and isinstance(target, ast.Name)
            and target.id == made.targets[0].id):
        raise NoRepair("no_repair")
    axis = value.args[1:2] + [k for k in value.keywords if k.arg == "axis"]
    reads = [n for n in ast.walk(scope_of(c, call)) if isinstance(n, ast.Name) and n.id == target.id
             and isinstance(n.ctx, ast.Load) and n is not target]
    if reads or not axis or any(k.arg not in ("axis", "name") for k in value.keywords):
        raise NoRepair("pattern")  # used as an index too, or no axis given (argmax's default axis is 0)
    return [renamed(c.source, value.func, "reduce_max")]


def straight_through(c: Context, refused: str) -> list[Edit]:
    """The edits giving each rounding, threshold or one-hot argmax on the break line a straight-through gradient;
    NoRepair(refused) when the line has none whose input is a name (the input is repeated, so it must be cheap and
    the same each time it is read)."""
    edits = []
    for call in c.source.nodes_on(c.broke, ast.Call):
        if call.lineno != c.broke:
            continue
        through = _passed_through(c, call)
        if through is not None and not _cut_again(c, call):
            code, stop = c.source.code(through), f"{c.tf}.stop_gradient"
            code = f"({code})" if isinstance(through, ast.BinOp) else code
            summed = f"{code} + {stop}({c.source.code(call)} - {code})"
            edits.append(Edit(*c.source.span(call), summed if _stands_alone(c, call) else f"({summed})"))
    edits = [e for e in edits if not any(o is not e and o.start <= e.start and e.end <= o.end for o in edits)]
    if not edits:
        raise NoRepair(refused)
    return edits


def _passed_through(c: Context, call: ast.Call) -> ast.AST | None:
    """The value a straight-through step stands for (the rounded t, the thresholded s, the argmax'ed p), or None."""
    if c.is_math(call, *ROUNDINGS) and len(call.args) == 1 and not call.keywords:
        return _plain(call.args[0])
    if c.is_math(call, "cast") and len(call.args) == 2 and _float_type(call.args[1]):
        test = call.args[0]
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Gt, ast.GtE, ast.Lt,
                                                                                             ast.LtE)):
            if _number(c, test.comparators[0]):  # a threshold, not another computed value
                return _plain(test.left)
        return None
    if c.is_math(call, "one_hot") and call.args and c.is_math(call.args[0], "argmax"):
        top = call.args[0]
        axis = (top.args[1:2] + [k.value for k in top.keywords if k.arg == "axis"])[:1]
        if axis and isinstance(axis[0], ast.UnaryOp) and ast.unparse(axis[0]) == "-1" and top.args:
            return _plain(top.args[0])
    return None


def _number(c: Context, bound: ast.AST) -> bool:
    """A number as written (0.5, -1), or a name the scope last assigned one (THRESHOLD = 0.5)."""
    if isinstance(bound, ast.Name):
        made = assigned(c, bound)
        bound = made.value if made is not None else bound
    if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub):
        bound = bound.operand
    return isinstance(bound, ast.Constant) and type(bound.value) in (int, float)


def _stands_alone(c: Context, call: ast.Call) -> bool:
    """Is the call a whole value (assigned, returned, an argument, a lambda's body), so a sum needs no parentheses?"""
    parent = c.source.parents.get(call)
    return (isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr, ast.Lambda, ast.keyword, ast.List,
                                ast.Tuple)) or isinstance(parent, ast.Call) and call in parent.args)


def _plain(node: ast.AST) -> ast.AST | None:
    """The node when it is names, attributes of them and numbers in arithmetic (`t`, `self.w`, `w * 4.0`): cheap to
    read twice, and the same value each time (a call could draw, or run a layer twice)."""
    parts = list(ast.walk(node))
    allowed = (ast.Name, ast.Attribute, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Load)
    if not all(isinstance(part, allowed) for part in parts) or not any(isinstance(p, ast.Name) for p in parts):
        return None
    return node


def _cut_again(c: Context, call: ast.Call) -> bool:
    """Is the step's result compared, argmax'ed or cast to an integer on the spot (tf.equal(tf.sign(a), tf.sign(b)),
    tf.cast(tf.round(p * 255.0), tf.uint8))? That cuts the path again, so a straight-through gradient before it
    mends nothing. A step already inside a stop_gradient is a straight-through's own, made by an earlier round."""
    parent = c.source.parents.get(call)
    if isinstance(parent, ast.Compare) or c.is_math(parent, *COMPARISONS):
        return True
    if c.is_math(parent, "cast") and len(parent.args) == 2 and not _float_type(parent.args[1]):
        return True
    while parent is not None:
        if c.is_math(parent, "stop_gradient"):
            return True
        parent = c.source.parents.get(parent)
    return False


def _float_type(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and node.value in FLOATS
            or isinstance(node, ast.Attribute) and node.attr in FLOATS)
