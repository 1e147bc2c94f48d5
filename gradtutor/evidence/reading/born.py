"""Which op on a gradient's path made its NaN or inf, from the values the ops kept (issue 35: exploding gradients).

An op whose kept values point at a NaN (values.evidence_at) made it when it was given finite values (a sqrt
at 0, an exp that overflowed) or is a tf.where with an unsafe branch. An op that was *given* a NaN or inf
and passed it on is not where it was born: a relu or a sigmoid cannot make one, and a NaN-prone op (sqrt,
log, division, …) handed an inf by a forward pass that overflowed while the weights were still finite is
not to blame either — that is a gradient that grew (an exploding RNN), whose cause no rule knows. Only when
the weights themselves already held NaN or inf (a compiled step is replayed eagerly after the step that
broke them: traced.py) is the first NaN-prone op they reach the best evidence left of the birth.
"""
from __future__ import annotations

from gradtutor.evidence.recording import opfacts
from gradtutor.evidence.reading.values import evidence_at, given_nonfinite, kept_value
from gradtutor.protocol import Cause

SELECTS = frozenset({"Select", "SelectV2"})  # its evidence is a NaN branch it was given: the unsafe where


def birth(graph, ops, tape, source):
    """The op that made the NaN or inf on this path (ops in the order they ran), or None when none did."""
    broken = None  # were the weights already NaN or inf when the path ran? read once, if it matters
    for op in ops:
        if evidence_at(op) != Cause.NON_FINITE:
            continue
        if op.type in SELECTS or not given_nonfinite(op):
            return op  # it made a NaN or inf out of finite values
        if op.type not in opfacts.RISKY:
            continue  # a relu, a sigmoid, a sum: what it returned is what it was given
        if broken is None:
            broken = weights_nonfinite(graph, tape, source)
        if broken:
            return op
    return None


def weights_nonfinite(graph, tape, source) -> bool:
    """Does a variable the tape watched (or the source itself) hold a NaN or inf now, right after the gradient call
    (before any optimizer step), i.e. when the path ran?"""
    variables = list(tape.watched_variables()) if tape is not None else []
    if hasattr(source, "assign") and all(source is not v for v in variables):
        variables.append(source)
    graph.paused += 1  # gradtutor's own reads are not the user's ops
    try:
        for variable in variables:
            if variable.dtype.is_floating or variable.dtype.is_complex:
                value = kept_value(variable.value())
                if value is not None and value.size and not _finite(value):
                    return True
    finally:
        graph.paused -= 1
    return False


def _finite(value) -> bool:
    import numpy as np

    return bool(np.isfinite(value).all())
