"""A division by 0 on the break line (a cosine similarity of an all-zero vector, a mean over an empty mask: 0 / 0)
made `tf.math.divide_no_nan`, TensorFlow's own division that is 0 where the divisor is 0, with a gradient that is
finite there too:

    return prod / (a_norm * b_norm)  →  return tf.math.divide_no_nan(prod, a_norm * b_norm)

Values change only where the divisor is 0, where the quotient was inf or NaN. Tried only when the NaN was made by
an op given the point where its slope is infinite (values.how_made's 'zero'), or handed on by one the recording saw
after the step that made it ('given'), and the double where did not fit; the re-run and central differences judge.
"""
from __future__ import annotations

import ast

from gradtutor.explain.fix.context import Context, NoRepair
from gradtutor.explain.fix.source import Edit

DIVIDES = ("divide", "truediv", "realdiv", "div")  # tf.divide, tf.math.truediv, tf.realdiv: (x, y)


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
