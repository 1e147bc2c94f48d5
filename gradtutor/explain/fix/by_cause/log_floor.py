"""A log given 0 on the break line (a probability's log in a hand-written cross-entropy: log(y_pred), log(1 - y_pred)
once a sigmoid has rounded to exactly 0 or 1): its operand floored at Keras's epsilon, as Keras's own losses clip
their predictions, so the value and the slope stay finite.

    K.log(1 - y_pred) → K.log(tf.maximum(1 - y_pred, 1e-7))

Values change only where the operand is below 1e-7, where the log was below -16 (or -inf) and its slope above 1e7.
The double where (zero.py) does not fit a log: its value at 0 is -inf itself, not a finite value to keep.

An acos, asin or atanh given ±1 (the angle between two vectors that point the same way: a cosine similarity of
exactly 1) has an infinite slope there: its operand is clipped the same epsilon inside ±1, where the angle changes
by at most 5e-4 radians and the slope stays below about 2e3.

    tf.math.acos(c) → tf.math.acos(tf.clip_by_value(c, -1 + 1e-7, 1 - 1e-7))
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair, root
from gradtutor.explain.fix.source import Edit

EPSILON = "1e-7"  # keras.config.epsilon()'s default, the clip of Keras's own cross-entropies
EDGED = ("acos", "asin", "atanh", "arccos", "arcsin", "arctanh")  # infinite slope at ±1 (keras.ops: arc…)


def floored(c: Context) -> list[Edit]:
    """The edits flooring every log's operand on the break line (not NumPy's: its value left TensorFlow already), or
    with no log there clipping every acos, asin or atanh operand inside ±1; NoRepair when there is none."""
    edits = _operands(c, ("log",), ("maximum", "clip_by_value"), f"{c.tf}.maximum({{}}, {EPSILON})") or \
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
