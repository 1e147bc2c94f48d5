"""Turn a failed comparison into the first line a learner reads: the cause, from evidence, and the fix.

The cause comes from what happened, never from a word in the source: the comparison
(None, shape, dtype, an exact constant ratio, a sign flip, a transposition), the
exception and where it was raised, and the run-time facts the child recorded
(gradtutor.evidence.reading.run_facts: what the tape watched, where the target was made, whether
a value left TensorFlow). A lesson's rule (its lesson.toml) may then word that cause for
its exercise; it fires only when its `cause` is the one the evidence names (and its
`fact`, and any source pattern, hold too).
"""
from __future__ import annotations

import ast
import re

from gradtutor.course.code_words import code_only
from gradtutor.checking.compare import ElementReport
from gradtutor.course.manifest import Diagnosis, Exercise
from gradtutor.checking.factors import row_factors_text, row_scale_sentence, scale_sentence
from gradtutor.checking.requirements import within_rules
from gradtutor.messages import course_text, has, join, say
from gradtutor.evidence.reading.causes import cause_of
from gradtutor.protocol import Cause

# TensorFlow's own error texts → the cause they mean (checked in order; the first match wins).
ERRORS = (
    (r"'NoneType' object has no attribute '_tape'|_push_tape|Tape is still recording", Cause.OUTSIDE_TAPE),
    (r"non-persistent|can only be called once", Cause.TAPE_REUSED),
    (r"tf\.gradients is not supported when eager", Cause.TF_GRADIENTS_EAGER),
    (r"Passed in object .* of type .*, not tf\.Tensor|_type_enum|not tf\.Tensor or tf\.Variable|"
     r"'Variable' object has no attribute 'dtype'", Cause.CANNOT_WATCH),
    (r"(?i)dtype.*int|int(32|64).*dtype|must be a floating|integer", Cause.INTEGER_PATH),
    (r"No gradient defined|without handle data|LookupError", Cause.NO_GRADIENT_OP),
    (r"(?i)out of (range|bounds)|slice index|Incompatible shapes|Matrix size-incompatible|must be rank|"
     r"reshape|Dimensions must be equal|rank|different ndims|Invalid reduction dimension|Shapes of all inputs must match|"
     r"must have the same shape", Cause.SHAPE),
    (r"(?i)symbolic|KerasTensor", Cause.NOT_USED),
    (r"has no setter|can't set attribute", Cause.UNWATCHED),
)

# TensorFlow's prefix naming the eager op's wrapper function and device, ahead of the op's own words
OP_WRAPPER = re.compile(r"\{\{function_node [^}]*\}\}\s*")

# A Keras layer's shape error (its own words, inside "Exception encountered when calling …"); raised
# before any gradient call, it is the forward pass's (and so is every shape error of ERRORS then).
KERAS_SHAPES = r"is incompatible with the layer|expected axis -?\d+ of input shape|expected shape=|Invalid input shape"

# The generic sentence for each cause (used when no lesson rule words it) is the catalogue's
# cause.<id>.checker (gradtutor/messages/<lang>/cause.toml): the same table `gradtutor explain` words
# its findings from (cause.<id>.what / .fix).
FALLBACK = Cause.RAISED  # an exception whose cause has no sentence of its own: "read the exception"
# (a wrong value's cause with none is worded as wrong-function's: cause_text)


def cause_text(cause: Cause) -> str:
    """The checker's sentence for a cause: why, and the fix."""
    if cause is Cause.FORWARD_SHAPE:
        return forward_shape_text(None, None)
    found = f"cause.{cause.value}.checker"
    if has(found):
        return say(found)
    if has(f"cause.{cause.value}.what") and has(f"cause.{cause.value}.fix"):  # explain's words for the same cause
        return say("diagnosis.what_and_fix", what=say(f"cause.{cause.value}.what"), fix=say(f"cause.{cause.value}.fix"))
    return say(f"cause.{Cause.WRONG_FUNCTION.value}.checker")


def visible_only() -> str:
    """Outside a course there are no hidden inputs (gradtutor.course.seeds): a check says so once."""
    return say("diagnosis.visible_only")


def no_hidden_inputs() -> str:
    """Why asking for hidden inputs outside a course is refused."""
    return say("diagnosis.no_hidden_inputs")


def evidence(report: ElementReport, facts: dict | None) -> Cause:
    """The cause the comparison and the run-time facts name for a failed element (gradtutor.evidence.reading.causes)."""
    return cause_of(report.symptom, report.pattern, report.factor, report.zero_there, facts)


def explain_failure(exercise: Exercise, report: ElementReport, source: str, blind: bool = False,
                    facts: dict | None = None, shapes: dict | None = None,
                    variant: str | None = None, elsewhere: list | None = None) -> tuple[Cause, str]:
    """The cause id, and one line: what is wrong with the returned value, then why and what to do.

    blind: the input is a hidden one, so the line quotes none of the reference's values or shape.
    shapes: the inputs' shapes ({name: [dims]}), from which a constant factor is read as a count.
    variant: the id of the reference's variant the values equal (a known mistake): it says what was computed.
    elsewhere: (factor, shapes) of the same value on the other seeds, which tell a count from a coincidence
    (gradtutor.checking.factors).
    """
    subject = say("diagnosis.subject", function=exercise.function) if report.element is None else say(
        "diagnosis.subject_element", function=exercise.function, element=report.element)
    if report.symptom == "none" and report.element is None and not (facts or {}).get("gradient_calls") \
            and not _has_return(source):
        return Cause.NO_RETURN, say("diagnosis.no_return", subject=subject)
    cause = evidence(report, facts)
    named = f"variant.{exercise.id}.{variant}"
    if cause is Cause.WRONG_FUNCTION and (facts or {}).get("fresh_weights") and not (variant and has(named)):
        cause = Cause.FRESH_WEIGHTS  # the run made new weights: a layer built inside, not the one given
    rule = _matching_rule(exercise.diagnoses, report.symptom, report.element, source, None, cause, facts)
    if variant and has(named):  # what the code computed instead, from its values: ahead of any rule's guess
        why = say(named)
    else:
        why = course_text(rule.key, rule.say) if rule else _seen(cause, facts) or within_rules(exercise, cause) or \
            _generic(report, cause, shapes, blind, elsewhere)
    if rule and cause is Cause.WRONG_FUNCTION and not (variant and has(named)) and not _evidenced(rule):
        # a rule that needs no evidence of its own says what the exercise asks, not why these values differ
        why = say("diagnosis.unknown_then_asked", unknown=cause_text(Cause.WRONG_FUNCTION), asked=why)
    return cause, say("diagnosis.failure", subject=subject, what=_what(report, blind), why=why) + _broke_at(cause, facts)


def explain_error(exercise: Exercise, error: dict, source: str, facts: dict | None = None) -> tuple[Cause, str]:
    """The cause id, and one line for learner code that raised: the exception, where, the cause and the fix."""
    message = OP_WRAPPER.sub("", error.get("message", ""))  # TensorFlow's wrapper of the op, not its words
    text = f"{error.get('type', 'Exception')}: {message}".strip().rstrip(":")
    where = f" ({error['where']}: {error['line'].strip()})" if error.get("where") and error.get("line") else (
        f" ({error['where']})" if error.get("where") else "")
    first = _headline(text) if text else "an exception"
    if error.get("unloaded"):
        return Cause.LOAD_FAILED, say("diagnosis.load_failed", function=exercise.function, name=error["unloaded"],
                                      error=first[:200], where=where, why=cause_text(Cause.LOAD_FAILED))
    line = say("diagnosis.raised", function=exercise.function, error=first[:300], where=where)
    cause = error_cause(error, facts)
    rule = _matching_rule(exercise.diagnoses, "error", None, source, text, cause, facts)
    named = Cause(rule.cause) if rule and rule.cause else cause
    if named is Cause.VARIABLE_REPLACED and _seen(named, facts):  # the run names the variables: ahead of a rule's guess
        why = _seen(named, facts)
    elif rule:
        why = course_text(rule.key, rule.say)
    elif cause is Cause.FORWARD_SHAPE:  # the op that raised, and whether a gradient call had run before it
        why = forward_shape_text(error.get("op"), facts)
    else:
        why = _seen(cause, facts) or within_rules(exercise, cause) or \
            cause_text(cause if has(f"cause.{cause.value}.checker") else FALLBACK)
    site = _broke_at(named, facts)
    if error.get("line") and error["line"].strip() and site.rstrip(")）").endswith(error["line"].strip()):
        site = ""  # the line that raised is the line the path broke at: quoted once, where it raised
    return named, say("diagnosis.because", line=line, why=why) + site


def forward_shape_text(op: str | None, facts: dict | None) -> str:
    """Why a shape error outside every gradient computation is the forward computation's, naming the op that
    raised when TensorFlow's message names it ([Op:Reshape], {{node …}})."""
    phase = say("diagnosis.forward_after") if (facts or {}).get("gradient_calls") else say("diagnosis.forward_before")
    named = say("diagnosis.forward_op", op=op) if op else say("diagnosis.forward_any_op")
    return say("cause.forward-shape.checker", phase=phase, op=named)


def _seen(cause: Cause, facts: dict | None) -> str | None:
    """The cause in the run's own words where the run saw its particulars: which variables were replaced, the step
    that made float64 (quoted after), an accumulator never entered (forward mode, not a tape); else None."""
    facts = facts or {}
    replaced = next((f for f in facts.get("findings") or () if f["cause"] == Cause.VARIABLE_REPLACED.value), None)
    if cause is Cause.VARIABLE_REPLACED and replaced and replaced.get("sources"):  # made again, or the name rebound
        kind = "made_again" if replaced.get("restarted") else "rebound"
        return say(f"diagnosis.replaced.{kind}", names=join(replaced["sources"]))
    if cause is Cause.DTYPE and (facts.get("broke_at") or {}).get("dtype"):
        return say("diagnosis.dtype_seen")
    if cause is Cause.OUTSIDE_TAPE and facts.get("accumulator_unentered"):
        return say("diagnosis.accumulator_unentered")
    return None


def _headline(text: str) -> str:
    """The line of an exception that says what went wrong: Keras wraps a layer's error in "Exception
    encountered when calling X.call()." and puts the error itself on a later line (in bold)."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if len(lines) > 1 and "Exception encountered when calling" in lines[0]:
        kind = lines[0].partition(":")[0]
        return f"{kind}: {lines[1]}"
    return lines[0] if lines else text


def error_cause(error: dict, facts: dict | None) -> Cause:
    """The cause an exception stands for: TensorFlow's own texts, then the facts of the call, then where it was
    raised (its `phase`): a shape error inside a gradient computation is the gradient's, any other the
    forward computation's."""
    kind, message = error.get("type", ""), error.get("message", "")
    if kind == "PermissionError":
        return Cause.SANDBOX
    if kind == "NameError":
        return Cause.UNDEFINED_NAME
    if "_id" in message and "has no attribute" in message:
        target = (facts or {}).get("target_left_tensorflow") or (facts or {}).get("left_tensorflow")
        return Cause.LEAVES_TENSORFLOW if target else Cause.CANNOT_WATCH
    if (facts or {}).get("no_sources") and "values to unpack" in message:
        # tape.gradient(loss, []) gave [] back: the variables list was empty when it was read
        return Cause.UNWATCHED if facts.get("frozen_variable") else Cause.NOT_USED
    if "None" in message and (facts or {}).get("gradient_calls"):
        # a None gradient used later (its norm, a stack): the cause is why it was None
        return evidence(ElementReport(0, None, "none"), facts)
    text = f"{kind}: {message}"
    cause = next((cause for pattern, cause in ERRORS if re.search(pattern, text)), Cause.RAISED)
    if (cause is Cause.SHAPE or cause is Cause.RAISED and re.search(KERAS_SHAPES, text)) and \
            _phase(error, facts) == "forward":
        return Cause.FORWARD_SHAPE  # raised computing a value, not a gradient: not a gradient's shape
    return cause


def _phase(error: dict, facts: dict | None) -> str:
    """Where the exception was raised: the child's fact (gradtutor.isolation.describe), else (a description
    without it) the guess from whether a gradient call had begun."""
    if error.get("phase") in ("gradient", "forward"):
        return error["phase"]
    return "gradient" if (facts or {}).get("gradient_calls") else "forward"


def inputs_modified(exercise: Exercise, changed: list[str]) -> str:
    return say("diagnosis.inputs_modified", function=exercise.function, changed=join(changed))


def _matching_rule(rules, symptom, element, source, error_text, cause, facts) -> Diagnosis | None:
    source = code_only(source)  # the code, not its docstring or comments: a rule reads what the code does
    for rule in rules:
        if rule.when not in (symptom, "any") or rule.element is not None and rule.element != element:
            continue
        if rule.cause and rule.cause != cause.value and not (symptom == "error" and rule.error_has):
            continue
        if rule.fact and not (facts or {}).get(rule.fact):
            continue
        if rule.source_has and not re.search(rule.source_has, source):
            continue
        if rule.source_lacks and re.search(rule.source_lacks, source):
            continue
        if rule.error_has and not (error_text and re.search(rule.error_has, error_text)):
            continue
        return rule
    return None


def _evidenced(rule: Diagnosis) -> bool:
    """Does the rule fire on evidence of its own (a run-time fact, the code's own words), beyond the cause?"""
    return bool(rule.fact or rule.source_has or rule.source_lacks or rule.error_has)


def _broke_at(cause: Cause, facts: dict | None) -> str:
    """Where the op that cut the path ran, when the cause named is that op's (the learner's own line);
    for a NaN, where the first op whose gradient is inf or NaN at its values ran."""
    facts = facts or {}
    if cause is Cause.NON_FINITE and facts.get("nonfinite_at"):
        return say("diagnosis.nonfinite_at", site=facts["nonfinite_at"][:200])
    # the analysis's own line for this cause first (the one `gradtutor explain` quotes), else the run facts' line
    site = next((found["site"] for found in facts.get("findings") or () if found["cause"] == cause.value and found["site"]),
                None) or (facts.get("broke_at") or {}).get(cause.value)
    if site and cause is Cause.UNWATCHED:  # no op cut the path: the line shows the source itself (made or read)
        return say("diagnosis.unwatched_at", site=site[:200])
    if site and cause is Cause.DTYPE:  # nothing broke: the line that first made float64 of a narrower float
        return say("diagnosis.dtype_at", site=site[:200])
    return say("diagnosis.broke_at", site=site[:200]) if site else ""


def _what(report: ElementReport, blind: bool) -> str:
    if report.symptom == "none":
        return say("compare.is_none") if report.element is not None else say("diagnosis.returned_none")
    what = report.blind_detail if blind else report.detail
    if report.pattern == "scale" and not blind:
        what += say("diagnosis.exactly_times", factor=report.factor)
    elif report.pattern == "row_scale" and not blind:
        what += say("diagnosis.row_factors", factors=row_factors_text(report.row_factors or ()))
    elif report.pattern == "partial" and not blind:
        wrong, _, size = (report.factor or "?/?").partition("/")
        what += say("diagnosis.some_differ", wrong=wrong, size=size)
    return what


def _generic(report: ElementReport, cause: Cause, shapes: dict | None = None, blind: bool = False,
             elsewhere: list | None = None) -> str:
    if report.symptom == "type":
        advice = f"diagnosis.type_advice.{report.learner_type}"
        return say(advice) if has(advice) else say("diagnosis.type_advice.other")
    if cause is Cause.SCALE and report.pattern == "row_scale":
        return row_scale_sentence(report.row_factors, blind)  # each row's own count (a factor no count makes
        # is another function's: evidence.causes)
    if cause is Cause.SCALE:
        return scale_sentence(report.factor, shapes, elsewhere or (), blind)
    if report.symptom == "none" and cause is Cause.WRONG_FUNCTION:  # None is no function's gradient: not connected
        return say("diagnosis.none_unknown")
    return cause_text(cause)


def _has_return(source: str) -> bool:
    """Does the function return a value anywhere? (Unparseable or a wrapper: assume it does.)"""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True
    if tree.body and not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return True
    return any(isinstance(node, ast.Return) and node.value is not None for node in ast.walk(tree))
