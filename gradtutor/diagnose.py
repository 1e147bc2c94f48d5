"""Turn a failed comparison into the first line a learner reads: the likely cause and the fix.

A lesson's own rules (course.toml) come first, because they know the pitfall
the exercise is about; the generic wording here covers everything else.
"""
from __future__ import annotations

import ast
import re

from gradtutor.compare import ElementReport
from gradtutor.course import Diagnosis, Exercise
from gradtutor.protocol import Cause

# The cause a symptom stands for when no rule of the exercise knows better.
SYMPTOM_CAUSES = {
    "none": Cause.UNKNOWN,
    "type": Cause.WRONG_TYPE,
    "shape": Cause.SHAPE,
    "dtype": Cause.DTYPE,
    "nonfinite": Cause.NON_FINITE,
    "zeros": Cause.UNKNOWN,
    "values": Cause.WRONG_FUNCTION,
}

GENERIC = {
    "none": "the tape recorded no path from the target to this input, so tape.gradient gave None — "
            "watch the input (tape.watch, or a trainable tf.Variable) and compute the target from it inside the `with` block",
    "zeros": "the target does not change when the input changes — e.g. a non-scalar target whose sum is constant "
             "(a softmax always sums to 1); take the gradient of a loss or of one output",
    "shape": "a gradient has the shape of the tensor it is taken with respect to — check the sources you pass to "
             "tape.gradient and that you did not reduce, slice or reshape the result",
    "dtype": "compute in float32 like the inputs — a float64 numpy array or Python floats give float64 tensors",
    "nonfinite": "look for log(0), division by zero, sqrt at 0 or tf.where with an unsafe branch in the computation",
    "values": "the gradient is connected but belongs to a different function — compare your target with the one the exercise asks for",
}

SANDBOX = ("exercise code runs in a sandbox: it may not read the course's answers, write outside its scratch "
           "folder, start processes, signal other processes or call C code through ctypes")

TYPE_ADVICE = {
    "a numpy array": "return the tf.Tensor that tape.gradient gives (no .numpy(), no numpy ops)",
    "a numpy scalar": "return the tf.Tensor that tape.gradient gives (no .numpy(), no numpy ops)",
    "a tf.Variable": "return the gradient tensor from tape.gradient, not a variable",
    "a keras.Variable": "return the gradient tensor from tape.gradient, not a variable",
    "a tf.IndexedSlices": "convert it to a dense tensor with tf.convert_to_tensor(grad)",
    "a Python float": "return the gradient tensor itself, not a number computed from it",
    "a Python int": "return the gradient tensor itself, not a number computed from it",
    "a Python bool": "return the gradient tensor itself",
}


def explain_failure(exercise: Exercise, report: ElementReport, source: str, blind: bool = False) -> tuple[Cause, str]:
    """The cause id, and one line: what is wrong with the returned value, then why and what to do.

    blind: the input is a hidden one, so the line quotes none of the reference's values or shape.
    """
    subject = exercise.function + "()"
    if report.element is not None:
        subject += f" element {report.element} of the returned tuple"
    rule = _matching_rule(exercise.diagnoses, report.symptom, report.element, source, None)
    if report.symptom == "none" and report.element is None and not _has_return(source, exercise.function):
        why = "the function has no `return` with a value — did you forget to return the gradient?"
        return Cause.NO_RETURN, f"{subject} returned None: {why}"
    what = _what(report, blind)
    why = rule.say if rule else _generic(report)
    return _cause_of(rule, report.symptom), f"{subject} {what}: {why}"


def explain_error(exercise: Exercise, error: dict, source: str) -> tuple[Cause, str]:
    """The cause id, and one line for learner code that raised: the exception, where, and why when a rule knows it."""
    text = f"{error.get('type', 'Exception')}: {error.get('message', '')}".strip().rstrip(":")
    rule = _matching_rule(exercise.diagnoses, "error", None, source, text)
    where = f" ({error['where']}: {error['line'].strip()})" if error.get("where") and error.get("line") else (
        f" ({error['where']})" if error.get("where") else "")
    first = text.splitlines()[0] if text else "an exception"
    line = f"{exercise.function}() raised {first[:300]}{where}"
    if rule:
        return _cause_of(rule, "error"), f"{line} — {rule.say}"
    if error.get("type") == "PermissionError":
        return Cause.SANDBOX, f"{line} — {SANDBOX}"
    return Cause.RAISED, line


def _cause_of(rule: Diagnosis | None, symptom: str | None) -> Cause:
    """A rule's own cause id when it names one; else what the symptom stands for."""
    named = getattr(rule, "cause", None)
    if named:
        return Cause(named)
    return Cause.RAISED if symptom == "error" else SYMPTOM_CAUSES.get(symptom or "values", Cause.UNKNOWN)


def _matching_rule(rules, symptom, element, source, error_text) -> Diagnosis | None:
    for rule in rules:
        if rule.when not in (symptom, "any"):
            continue
        if rule.element is not None and rule.element != element:
            continue
        if rule.source_has and not re.search(rule.source_has, source):
            continue
        if rule.source_lacks and re.search(rule.source_lacks, source):
            continue
        if rule.error_has and not (error_text and re.search(rule.error_has, error_text)):
            continue
        return rule
    return None


def _what(report: ElementReport, blind: bool) -> str:
    if report.symptom == "none":
        return "is None" if report.element is not None else "returned None"
    return report.blind_detail if blind else report.detail


def _generic(report: ElementReport) -> str:
    if report.symptom == "type":
        return TYPE_ADVICE.get(report.learner_type, "return tf.Tensor values, as tape.gradient gives them")
    return GENERIC.get(report.symptom or "values", GENERIC["values"])


def _has_return(source: str, name: str) -> bool:
    """Does the function return a value anywhere? (Unparseable source: assume it does.)"""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None:
            return True
    return False
