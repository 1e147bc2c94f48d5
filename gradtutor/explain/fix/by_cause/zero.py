"""The double where for a NaN gradient at 0 that no tf.where guards: a sqrt, a fractional power, a euclidean norm,
an angle, a sinc or sin(x)/x on the break line, rewritten so that every value stays what it was.

    tf.sqrt(x) → tf.where(x > 0, tf.sqrt(tf.where(x > 0, x, tf.ones_like(x))), tf.zeros_like(x))

The outer where keeps the values (sqrt(0) is 0); the inner one keeps the op away from 0, so the
branch the outer where drops has a finite slope and the zero it is given stays zero (0 · inf is
NaN). The gradient where the operand is 0 becomes 0. That is the right gradient only where the
operand is at its minimum (a sum of squares, a value clipped at 0): for sqrt(c · x) with c at 0
the slope truly is infinite, and the repair is refused (`slope_infinite`).

A log of a label's 0 in a loss whose parameters are named the other way round from Keras's call
(`def loss(y_pred, y_true)`, called as loss(y_true, y_pred)) is repaired by swapping the two names back.
"""
from __future__ import annotations

import ast
import operator

from gradtutor.explain.fix.context import Context, NoRepair, assigned, fresh, overlap, root
from gradtutor.explain.fix.source import Edit

# f(x)/x → 1 at 0 for these odd functions (f(0) = 0, f'(0) = 1); f(x)/x is even, so its slope at 0 is 0 too.
# expm1 and log1p are not here: their quotient's slope at 0 is ±1/2, not the 0 the double where gives.
ODD_SLOPE_ONE = ("sin", "sinh", "tan", "tanh", "asin", "atan", "asinh", "atanh")
MINIMUM_AT_ZERO = ("square", "norm", "relu")  # ops whose output is ≥ 0 and flat where it is 0
REDUCTIONS = ("reduce_sum", "reduce_mean", "reduce_max")
POOLS = ("depthwise_conv2d", "conv2d", "avg_pool", "avg_pool2d")  # windows over a minimum: flat where all are 0
ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
NORM_PARAMETERS = ("tensor", "ord", "axis", "keepdims", "name")


def double_where(c: Context) -> list[Edit]:
    """The edits guarding every zero-sensitive op on the break line; NoRepair when there is none (or one is wrong)."""
    rewrites, refused = [], None
    for node in c.source.nodes_on(c.broke, ast.AST):
        if getattr(node, "lineno", None) != c.broke or _inside_where(c, node):
            continue
        try:
            found = _rewrite(c, node)
        except NoRepair as why:
            refused = why
            continue
        if found is not None:
            rewrites.append((node, *found))
    if not rewrites:
        raise refused or NoRepair("non_finite")
    return _edits(c, rewrites)


def _rewrite(c: Context, node: ast.AST):
    """(operand, the op's text with {} where the operand goes, condition, value where it fails, stem) or None."""
    tf = c.tf
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and _fractional(c, node.right):
        _at_minimum(c, node.left)
        return node.left, _around(c, node, node.left), "{} > 0", f"{tf}.zeros_like({{}})", "base"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _odd_over_itself(c, node):
        return node.right, _around(c, node, node.right), "{} != 0", f"{tf}.ones_like({{}})", "x"
    if not isinstance(node, ast.Call) or not node.args:
        return None
    if c.is_math(node, "sqrt") or c.is_math(node, "pow") and len(node.args) == 2 and _fractional(c, node.args[1]):
        _at_minimum(c, node.args[0])
        stem = "squared" if "square" in c.source.code(node.args[0]) else "base"
        return node.args[0], _around(c, node, node.args[0]), "{} > 0", f"{tf}.zeros_like({{}})", stem
    if c.is_tf(node, "angle"):  # angle(0) is 0 in TensorFlow; |z| is real, as the angle is
        return node.args[0], _around(c, node, node.args[0]), f"{tf}.abs({{}}) > 0", f"{tf}.zeros_like({tf}.abs({{}}))", "z"
    if _is_sinc(c, node) and len(node.args) == 1:  # sinc(0) is 1, its slope there 0
        return node.args[0], _around(c, node, node.args[0]), "{} != 0", f"{tf}.ones_like({{}})", "u"
    if c.is_tf(node, "norm"):
        return _norm(c, node)
    return None


def _norm(c: Context, call: ast.Call):
    """A euclidean norm (a vector's, or Frobenius) → the sqrt of the sum of squares it computes, guarded."""
    given = dict(zip(NORM_PARAMETERS, call.args)) | {k.arg: k.value for k in call.keywords}
    if set(given) - set(NORM_PARAMETERS):
        return None
    order, axis = given.get("ord"), given.get("axis")
    kind = order.value if isinstance(order, ast.Constant) else None if order is None else "other"
    matrix = isinstance(axis, (ast.Tuple, ast.List)) and len(axis.elts) == 2
    if kind not in (None, "euclidean", "fro", 2, 2.0) or kind in (2, 2.0) and matrix:
        return None  # an ord=1 norm has a finite slope at 0; a matrix 2-norm is a singular value
    options = "".join(f", {name}={c.source.code(given[name])}" for name in ("axis", "keepdims") if name in given)
    squares = f"{c.tf}.reduce_sum({c.tf}.square({c.source.code(given['tensor'])}){options})"
    return squares, f"{c.tf}.sqrt({{}})", "{} > 0", f"{c.tf}.zeros_like({{}})", "squared"


def _around(c: Context, node: ast.AST, operand: ast.AST) -> str:
    """The node's text with {} in place of its operand (other braces doubled)."""
    start, end = c.source.span(node)
    at, to = c.source.span(operand)
    text = c.source.text
    return _escape(text[start:at]) + "{}" + _escape(text[to:end])


def _escape(text: str) -> str:
    """The text as a str.format template that gives it back."""
    return text.replace("{", "{{").replace("}", "}}")


def _edits(c: Context, rewrites: list) -> list[Edit]:
    """Each op replaced by its double where; an operand more than a name is computed once, on a line before."""
    statement = c.source.statement_at(c.broke)
    taken: set[str] = set()  # names this repair's lines have chosen
    edits, lines = [], []
    for node, operand, form, condition, otherwise, stem in rewrites:
        text = operand if isinstance(operand, str) else c.source.code(operand)
        tight = isinstance(operand, ast.AST) and not isinstance(operand, (ast.Call, ast.Name, ast.Attribute))
        if not _simple(text) and _can_hoist(c, statement, node):
            tight = False
            name = fresh(c, stem, taken)
            taken.add(name)
            lines.append(f"{c.source.indent(statement.lineno)}{name} = {text}{c.source.newline}")
            text = name
        test = condition.format(f"({text})" if tight else text)  # an operand `a > b` would chain: `a > b > 0`
        inner = f"{c.tf}.where({test}, {text}, {c.tf}.ones_like({text}))"
        guarded = f"{c.tf}.where({test}, {form.format(inner)}, {otherwise.format(text, text)})"
        edits.append(Edit(*c.source.span(node), guarded))
    if overlap(edits):
        raise NoRepair("pattern")
    if lines:
        at = c.source.line_start(statement.lineno)
        edits.append(Edit(at, at, "".join(lines)))
    return edits


def _simple(text: str) -> bool:
    """A name or an attribute: cheap to repeat in the guard."""
    return all(part.isidentifier() for part in text.split("."))


def _can_hoist(c: Context, statement: ast.stmt | None, node: ast.AST) -> bool:
    """Can the operand be computed on a line before its statement? Not inside a lambda or comprehension (its names
    are local there), nor a statement that shares its line or is the head of a block."""
    if not isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)):
        return False
    if statement.col_offset != len(c.source.indent(statement.lineno)):
        return False
    if any(s is not statement and (s.lineno == statement.lineno or s.end_lineno == statement.lineno)
           for s in c.source.nodes_on(statement.lineno, ast.stmt) if s not in _ancestors(c, statement)):
        return False
    return not any(isinstance(a, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
                   for a in _ancestors(c, node, stop=statement))


def _ancestors(c: Context, node: ast.AST, stop: ast.AST | None = None) -> list[ast.AST]:
    found = []
    while node in c.source.parents and node is not stop:
        node = c.source.parents[node]
        found.append(node)
    return found


def _inside_where(c: Context, node: ast.AST) -> bool:
    return any(c.is_math(a, "where") for a in _ancestors(c, node))


def _is_sinc(c: Context, call: ast.Call) -> bool:
    """keras.ops.sinc (or tf.experimental.numpy.sinc): a normalised sinc whose own where leaves a NaN slope at 0."""
    owner = call.func
    if not isinstance(owner, ast.Attribute) or owner.attr != "sinc":
        return False
    owner = root(owner)
    return isinstance(owner, ast.Name) and owner.id in {c.tf, c.source.module_alias("keras") or "keras"}


def _odd_over_itself(c: Context, division: ast.BinOp) -> bool:
    """sin(x) / x (and the other ODD_SLOPE_ONE functions): 0/0 at 0, whose value there is 1."""
    top, x = division.left, division.right
    return (isinstance(x, (ast.Name, ast.Attribute)) and c.is_math(top, *ODD_SLOPE_ONE) and len(top.args) == 1
            and not top.keywords and c.source.code(top.args[0]) == c.source.code(x))


def _fractional(c: Context, exponent: ast.AST) -> bool:
    """An exponent between 0 and 1, as a number the code spells out (or a name assigned one)."""
    value = _number(c, exponent, 5)
    return value is not None and 0 < value < 1


def _number(c: Context, node: ast.AST, depth: int) -> float | None:
    if depth == 0:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _number(c, node.operand, depth - 1)
        return None if value is None else -value
    if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        left, right = _number(c, node.left, depth - 1), _number(c, node.right, depth - 1)
        if left is None or right is None or isinstance(node.op, ast.Div) and right == 0:
            return None
        return ARITHMETIC[type(node.op)](left, right)
    if c.is_math(node, "constant", "cast", "convert_to_tensor") and node.args:
        return _number(c, node.args[0], depth - 1)
    if isinstance(node, ast.Name):
        made = assigned(c, node)
        return None if made is None else _number(c, made.value, depth - 1)
    return None


def _at_minimum(c: Context, operand: ast.AST) -> None:
    """NoRepair unless the operand is ≥ 0 by construction and flat where it is 0 (squares, a clip or max at 0, a
    norm): there a gradient of 0 is the slope; elsewhere (sqrt(c · x), c at 0) the slope really is infinite."""
    if not _minimum(c, operand, 5):
        raise NoRepair("slope_infinite")


def _minimum(c: Context, node: ast.AST, depth: int) -> bool:
    if depth == 0:
        return False
    if isinstance(node, ast.Name):
        made = assigned(c, node)
        return made is not None and _minimum(c, made.value, depth - 1)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Pow):
            power = _number(c, node.right, 3)
            return power is not None and power > 0 and power % 2 == 0
        if isinstance(node.op, ast.Mult):
            return c.source.code(node.left) == c.source.code(node.right)
        if isinstance(node.op, ast.Add):
            return _minimum(c, node.left, depth - 1) and _minimum(c, node.right, depth - 1)
        return False
    if c.is_math(node, *MINIMUM_AT_ZERO):
        return True
    if c.is_math(node, *POOLS) and node.args:  # an L2 pooling: sqrt(conv(x ** 2, window)); the re-run checks it
        return _minimum(c, node.args[0], depth - 1)
    if c.is_math(node, "add", "add_n") and node.args:  # tf.add(a, b), tf.add_n([a, b]): a sum of minima
        terms = node.args[0].elts if isinstance(node.args[0], (ast.List, ast.Tuple)) else node.args
        return all(_minimum(c, term, depth - 1) for term in terms)
    if c.is_math(node, *REDUCTIONS) and node.args:
        return _minimum(c, node.args[0], depth - 1)
    if c.is_math(node, "clip_by_value") and len(node.args) >= 2:
        return _number(c, node.args[1], 3) == 0
    if c.is_math(node, "maximum") and len(node.args) == 2:
        return 0 in (_number(c, node.args[0], 3), _number(c, node.args[1], 3))
    return False


def swapped_parameters(c: Context) -> list[Edit]:
    """`def loss(y_pred, y_true)` given to Keras, which calls loss(y_true, y_pred): the two names swapped back."""
    function = next((n for n in c.source.nodes_on(c.broke, ast.FunctionDef) if n.lineno == c.broke), None)
    named = [a for a in function.args.args if a.arg != "self"][:2] if function is not None else []
    if len(named) < 2:
        raise NoRepair("non_finite")
    a, b = named
    return [Edit(*c.source.span(a), c.source.code(b)), Edit(*c.source.span(b), c.source.code(a))]
