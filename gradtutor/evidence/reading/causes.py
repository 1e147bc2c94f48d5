"""Which cause a failed comparison has, from what the recording of the learner's call saw: one precedence.

First the analysis's own findings on the call (gradtutor.evidence.reading.analysis, the causes `gradtutor
explain` reports): the first whose symptom is the comparison's names the cause. What it does not
see — a value that is wrong without a None, zero or NaN in it, a fact no finding carries — is
named from the run facts (gradtutor.evidence.reading.run_facts) in the order of the tables below, then
from the comparison's pattern (a constant factor, a sign, a transposition).
"""
from __future__ import annotations

import re

from gradtutor.protocol import Cause, Symptom

CAUSES = frozenset(cause.value for cause in Cause)

# Why a gradient is None (or zero after unconnected_gradients=ZERO), from the facts, in order of precedence.
NONE_FACTS = (
    ("target_left_tensorflow", Cause.LEAVES_TENSORFLOW),
    ("variable_replaced", Cause.VARIABLE_REPLACED),
    ("source_unwatched", Cause.UNWATCHED),
    ("watched_late", Cause.UNWATCHED),
    ("path_break", None),  # the op that cut the path, by its own cause id
    ("left_tensorflow", Cause.LEAVES_TENSORFLOW),
    ("numpy_function", Cause.LEAVES_TENSORFLOW),
    ("target_outside", Cause.OUTSIDE_TAPE),
    ("outside_input", Cause.OUTSIDE_TAPE),
    ("integer_op", Cause.INTEGER_PATH),
    ("assigned_variable", Cause.STATE_BREAKS_PATH),
    ("stop_gradient", Cause.STOP_GRADIENT),
)

# Why a gradient is zero when it is not None: a value that stopped depending on the source.
ZERO_FACTS = (("path_cut", None), ("assigned_variable", Cause.STATE_BREAKS_PATH),
              ("integer_op", Cause.INTEGER_PATH), ("stop_gradient", Cause.STOP_GRADIENT),
              ("saturated", Cause.SATURATION))


def cause_of(symptom: str | None, pattern: str | None, factor: str | None, zero_there: bool, facts: dict | None) -> Cause:
    """The cause the comparison (its symptom, pattern, constant factor, zeros where the reference has none) and
    the run-time facts name for a failed element."""
    facts = facts or {}
    found = _found(symptom, facts, pattern == "partial" and zero_there)
    if found is not None:  # what the evidence analysis found on the same call, for this symptom
        return found
    if symptom == "none" or symptom == "zeros" and facts.get("zero_fill"):
        return _first(NONE_FACTS, facts) or (Cause.NOT_USED if facts.get("gradient_calls") else Cause.UNKNOWN)
    if symptom == "zeros":
        if facts.get("source_unwatched") or facts.get("watched_late"):
            return Cause.UNWATCHED
        if "Softmax" in facts.get("ops", ()):
            return Cause.SOFTMAX_SUM
        return _first(ZERO_FACTS, facts) or Cause.NOT_USED
    # a factor of each row's own (row_scale) is a reduction or normalisation per row: a scale too
    patterns = {"scale": Cause.SCALE, "row_scale": Cause.SCALE, "sign": Cause.SIGN, "transposed": Cause.TRANSPOSED}
    if pattern == "scale" and not re.fullmatch(r"-?(1/)?\d+", factor or ""):
        return Cause.WRONG_FUNCTION  # proportional, but by no count of anything: another function
    if pattern == "row_scale" and factor == "other":
        return Cause.WRONG_FUNCTION  # each row by a factor no count makes: a log or a square of each row's value
    if pattern in patterns:
        return patterns[pattern]
    if symptom == "values" and facts.get("left_tensorflow"):
        return Cause.LEAVES_TENSORFLOW  # a term computed outside TensorFlow is a constant to the tape
    if pattern == "partial" and zero_there and facts.get("saturated"):
        return Cause.SATURATION  # zero exactly where a sigmoid or softmax sat at its float32 limit
    if symptom == "values" and facts.get("variable_replaced"):
        return Cause.VARIABLE_REPLACED  # each step started again from a new variable
    if symptom == "shape" and facts.get("path_break") == Cause.LEAVES_TENSORFLOW.value:
        return Cause.LEAVES_TENSORFLOW  # a py_function whose Python left TensorFlow answers with a scalar zero
    return {"type": Cause.WRONG_TYPE, "shape": Cause.SHAPE, "dtype": Cause.DTYPE,
            "nonfinite": Cause.NON_FINITE}.get(symptom or "values", Cause.WRONG_FUNCTION)


def _found(symptom: str | None, facts: dict, only_zeros_wrong: bool = False) -> Cause | None:
    """The cause of the analysis's first finding on the call whose symptom is the comparison's (a None gradient
    the analysis reports as zeros when unconnected_gradients=ZERO filled it): one analysis decides, the fact
    tables above only name what it does not see (a value wrong without a None, zero or NaN in it).
    only_zeros_wrong: the comparison found the wrong entries of a values mismatch to be zeros, the rest right."""
    wanted = {Symptom.NONE: (Symptom.NONE,), Symptom.ZEROS: (Symptom.ZEROS, Symptom.TINY, Symptom.NONE),
              Symptom.NONFINITE: (Symptom.NONFINITE,), Symptom.VALUES: (Symptom.VALUES,)}.get(symptom)
    for finding in facts.get("findings") or () if wanted else ():
        if finding["symptom"] in wanted and finding["cause"] in CAUSES:
            if symptom == Symptom.VALUES and finding["cause"] == Cause.SATURATION and not only_zeros_wrong:
                continue  # zeros at saturated entries explain wrong values only where the wrong ones are those zeros
            return Cause(finding["cause"])
    return None


def _first(table, facts: dict) -> Cause | None:
    """The cause of the first fact of `table` that holds (a None cause: the fact's value is the cause id)."""
    for key, cause in table:
        if facts.get(key):
            return cause or Cause(facts[key])
    return None
