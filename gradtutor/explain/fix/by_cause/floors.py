"""An op given the point where it fails, on the break line, its operand kept away from that point (or the op made
one that is finite there): a log given 0 is floored, an acos given ±1 clipped inside, a division by 0 made
divide_no_nan, and a `tf.where`'s branch given a safe input by a second where:

    tf.where(x > 0, tf.math.log(x), 0.0)  →  tf.where(x > 0, tf.math.log(tf.where(x > 0, x, tf.ones_like(x))), 0.0)

A log given 0 on the break line (a probability's log in a hand-written cross-entropy: log(y_pred), log(1 - y_pred)
once a sigmoid has rounded to exactly 0 or 1): its operand floored at Keras's epsilon, as Keras's own losses clip
their predictions, so the value and the slope stay finite.

    K.log(1 - y_pred) → K.log(tf.maximum(1 - y_pred, 1e-7))

Values change only where the operand is below 1e-7, where the log was below -16 (or -inf) and its slope above 1e7.
The double where (zero.py) does not fit a log: its value at 0 is -inf itself, not a finite value to keep.

The log of a sigmoid or a softmax is not floored but computed from the logits, as the library's own stable op does
(its value is the same wherever the log was finite, and finite, with a slope that is not 0, where it was -inf):

    tf.math.log(tf.nn.sigmoid(z)) → tf.math.log_sigmoid(z)      K.log(K.softmax(z)) → K.log_softmax(z)

also when the probabilities were given a name first (`probs = tf.nn.softmax(h @ w + b)`, then `log(probs)`): the
logits get a name of their own on the line before, and the log is computed from it. A floor there would keep the
value finite but give every clamped probability a slope of 0: a softmax saturated by large logits then gets no
gradient at all, which the re-run would rightly not verify.

An acos, asin or atanh given ±1 (the angle between two vectors that point the same way: a cosine similarity of
exactly 1) has an infinite slope there: its operand is clipped the same epsilon inside ±1, where the angle changes
by at most 5e-4 radians and the slope stays below about 2e3.

    tf.math.acos(c) → tf.math.acos(tf.clip_by_value(c, -1 + 1e-7, 1 - 1e-7))

A division by 0 on the break line (a cosine similarity of an all-zero vector, a mean over an empty mask: 0 / 0)
made `tf.math.divide_no_nan`, TensorFlow's own division that is 0 where the divisor is 0, with a gradient that is
finite there too:

    return prod / (a_norm * b_norm)  →  return tf.math.divide_no_nan(prod, a_norm * b_norm)

Values change only where the divisor is 0, where the quotient was inf or NaN. Tried only when the NaN was made by
an op given the point where its slope is infinite (values.how_made's 'zero'), or handed on by one the recording saw
after the step that made it ('given'), and the double where did not fit; the re-run and central differences judge.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, fresh, overlap, root, scope_of
from gradtutor.explain.fix.source import Edit

EPSILON = "1e-7"  # keras.config.epsilon()'s default, the clip of Keras's own cross-entropies
STABLE = {"sigmoid": "log_sigmoid", "softmax": "log_softmax"}  # log(f(z)) computed from z (tf: tf.math, tf.nn)
TF_HOME = {"log_sigmoid": "math", "log_softmax": "nn"}
UNSAFE_AT = ("log", "sqrt", "exp", "pow", "divide", "truediv", "rsqrt", "reciprocal", "xlogy")
DIVIDES = ("divide", "truediv", "realdiv", "div")  # tf.divide, tf.math.truediv, tf.realdiv: (x, y)
EDGED = ("acos", "asin", "atanh", "arccos", "arcsin", "arctanh")  # infinite slope at ±1 (keras.ops: arc…)


def floored(c: Context) -> list[Edit]:
    """The edits flooring every log's operand on the break line (not NumPy's: its value left TensorFlow already), or
    with no log there clipping every acos, asin or atanh operand inside ±1; NoRepair when there is none."""
    edits = _stable(c) or _stable_named(c) or _operands(c, ("log",), ("maximum", "clip_by_value"), f"{c.tf}.maximum({{}}, {EPSILON})") or \
        _operands(c, EDGED, ("clip_by_value",), f"{c.tf}.clip_by_value({{}}, -1 + {EPSILON}, 1 - {EPSILON})")
    if not edits:
        raise NoRepair("non_finite")
    return edits  # (tensorflow is imported by repairs.repair when the script imports only Keras)


def _operands(c: Context, names, guarded, form: str) -> list[Edit]:
    """The edits putting the operand of every one-argument call of one of `names` on the break line into `form`, but
    NumPy's (its value left TensorFlow already) and an operand already guarded by one of the `guarded` tf ops."""
    edits = []
    for call in c.source.nodes_on(c.broke, ast.Call):
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in names and len(call.args) == 1 and not call.keywords):
            continue
        owner, operand = root(func), call.args[0]
        if isinstance(owner, ast.Name) and owner.id == c.np or c.is_tf(operand, *guarded):
            continue
        edits.append(Edit(*c.source.span(operand), form.format(c.source.code(operand))))
    return edits


def _stable(c: Context) -> list[Edit]:
    """The edits computing every `log(sigmoid(z))` or `log(softmax(z, …))` on the break line from z: the inner call
    renamed (log_sigmoid, log_softmax; tf's under tf.math and tf.nn) and put in the log's place."""
    edits = []
    for call in c.source.nodes_on(c.broke, ast.Call):
        inner = call.args[0] if len(call.args) == 1 and not call.keywords else None
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "log" and isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute) and inner.func.attr in STABLE):
            continue
        owners = {root(call.func), root(inner.func)}
        if any(isinstance(owner, ast.Name) and owner.id == c.np for owner in owners):
            continue  # NumPy's: its value left TensorFlow already
        name = STABLE[inner.func.attr]
        func = f"{c.tf}.{TF_HOME[name]}.{name}" if c.is_tf(inner, inner.func.attr) else \
            f"{c.source.code(inner.func.value)}.{name}"
        start, end = c.source.span(inner.func)
        edits.append(Edit(*c.source.span(call), func + c.source.text[end:c.source.span(inner)[1]]))
    return edits

def _stable_named(c: Context) -> list[Edit]:
    """`log(NAME)` on the break line, NAME bound once in its function (or the module) by `NAME = softmax(z, …)` (or
    a sigmoid) on a statement before it whose block holds the log's: `logits = z` put on the line before, the
    softmax given it, and the log made log_softmax of it. [] when there is no such name, or it is bound elsewhere."""
    for call in c.source.nodes_on(c.broke, ast.Call):
        name = call.args[0] if len(call.args) == 1 and not call.keywords else None
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "log" and isinstance(name, ast.Name)
                and not (isinstance(root(call.func), ast.Name) and root(call.func).id == c.np)):
            continue
        scope = scope_of(c, call)
        binds = _bindings(scope, name.id)
        made = c.source.parents.get(binds[0]) if len(binds) == 1 else None
        if not (isinstance(made, ast.Assign) and len(made.targets) == 1 and _runs_before(c, made, call)):
            continue
        inner = made.value
        if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr in STABLE
                and len(inner.args) == 1) or isinstance(root(inner.func), ast.Name) and root(inner.func).id == c.np:
            continue
        stable = STABLE[inner.func.attr]
        func = f"{c.tf}.{TF_HOME[stable]}.{stable}" if c.is_tf(inner, inner.func.attr) else \
            f"{c.source.code(inner.func.value)}.{stable}"
        z_start, z_end = c.source.span(inner.args[0])
        rest = c.source.text[z_end:c.source.span(inner)[1]]  # the softmax's axis, and its closing parenthesis
        if isinstance(inner.args[0], ast.Name) and len(_bindings(scope, inner.args[0].id)) <= 1:  # logits named
            return [Edit(*c.source.span(call), f"{func}({inner.args[0].id}{rest}")]
        logits = fresh(c, "logits")
        z = c.source.code(inner.args[0])
        z = f"({z})" if "\n" in z else z
        start = c.source.line_start(made.lineno)
        return [Edit(start, start, f"{c.source.indent(made.lineno)}{logits} = {z}{c.source.newline}"),
                Edit(z_start, z_end, logits), Edit(*c.source.span(call), f"{func}({logits}{rest}")]
    return []


def _bindings(scope: ast.AST, name: str) -> list[ast.Name]:
    """Where the scope binds the name (assigned, a loop's target, deleted); one or none: the same value wherever read."""
    return [n for n in ast.walk(scope) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]


def _runs_before(c: Context, statement: ast.stmt, node: ast.AST) -> bool:
    """Does the statement run before the node each time the node runs: a statement of the same body (a function's,
    a loop's, an `if` branch's) before the one holding the node?"""
    parent = c.source.parents.get(statement)
    body = next((getattr(parent, f) for f in ("body", "orelse", "finalbody")
                 if statement in getattr(parent, f, ())), [])
    while node is not None and node not in body:
        node = c.source.parents.get(node)
    return node is not None and body.index(node) > body.index(statement)


def normalized(c: Context) -> list[Edit]:
    """`x / tf.norm(x, axis=a, keepdims=True)` on the break line (an embedding made unit length, a cosine's halves):
    TensorFlow's own `tf.math.l2_normalize(x, axis=a)`, which divides by the norm floored at 1e-6, so an all-zero
    row gives 0 with a finite slope instead of 0 / 0. Values change only where the norm is below 1e-6. [] when the
    line has no such division (another norm's order, another numerator)."""
    for node in c.source.nodes_on(c.broke, ast.BinOp):
        norm = node.right
        if not (isinstance(node.op, ast.Div) and c.is_tf(norm, "norm") and len(norm.args) == 1
                and c.source.code(norm.args[0]) == c.source.code(node.left)):
            continue
        given = {k.arg: k.value for k in norm.keywords}
        if set(given) - {"axis", "keepdims"} or "axis" in given and not _kept(given.get("keepdims")):
            continue  # an ord, a name: another norm; an axis not kept: the division broadcasts otherwise
        axis = f", axis={c.source.code(given['axis'])}" if "axis" in given else ""
        return [Edit(*c.source.span(node), f"{c.tf}.math.l2_normalize({c.source.code(node.left)}{axis})")]
    return []


def _kept(value) -> bool:
    return isinstance(value, ast.Constant) and value.value is True


def no_nan(c: Context) -> list[Edit]:
    """The edits making every division on the break line divide_no_nan; NoRepair when it has none (or they nest)."""
    statement = c.source.statement_at(c.broke)
    if statement is None:
        raise NoRepair("non_finite")
    edits, spans = [], []
    for node in ast.walk(statement):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            numerator, divisor = node.left, node.right
        elif c.is_tf(node, *DIVIDES) and len(node.args) == 2 and not node.keywords:
            numerator, divisor = node.args
        else:
            continue
        if node.lineno != c.broke or isinstance(divisor, ast.Constant):
            continue  # a division by a number is not a division by 0
        spans.append(c.source.span(node))
        edits.append(Edit(*spans[-1], f"{c.tf}.math.divide_no_nan({c.source.code(numerator)}, "
                                      f"{c.source.code(divisor)})"))
    if not edits or any(a[0] < b[0] < a[1] for a in spans for b in spans):  # nested divisions: by hand
        raise NoRepair("non_finite")
    return edits


def where_branches(c: Context) -> list[Edit]:
    """`tf.where(c, f(x), y)` on the break line with a log, sqrt, exp or division in a branch: each unsafe operand
    given a second where on the same condition, so the branch the where drops is computed on a safe value (the
    dropped branch's inf times the 0 it is given is NaN). [] when the line has no such where."""
    for where in c.source.nodes_on(c.broke, ast.Call):
        if not (c.is_tf(where, "where") and len(where.args) == 3):
            continue
        condition = c.source.code(where.args[0])
        edits = []
        for branch, kept in ((where.args[1], True), (where.args[2], False)):
            for operand in _unsafe_operands(c, branch):
                code = c.source.code(operand)
                safe = f"{c.tf}.ones_like({code})"
                guarded = f"{code}, {safe}" if kept else f"{safe}, {code}"
                edits.append(Edit(*c.source.span(operand), f"{c.tf}.where({condition}, {guarded})"))
        if edits and not overlap(edits):
            return edits
    return []


def _unsafe_operands(c: Context, branch: ast.AST) -> list[ast.AST]:
    """The innermost operands whose value makes a NaN or inf gradient: the argument of log/sqrt/exp, a divisor."""
    found = []
    for node in ast.walk(branch):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Pow)):
            found.append(node.right if isinstance(node.op, ast.Div) else node.left)
        elif c.is_tf(node, *UNSAFE_AT) and node.args:
            found.append(node.args[-1] if node.func.attr in ("pow", "divide", "truediv", "xlogy") else node.args[0])
    found = [n for n in found if not isinstance(n, ast.Constant)]
    return [n for n in found if not any(o is not n and o in set(ast.walk(n)) for o in found)]
