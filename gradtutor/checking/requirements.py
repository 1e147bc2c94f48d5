"""The rules an exercise's text states (lesson.toml `requires`): each checked from what the run did, the
sentence of a broken one, and the cause sentences whose generic fix a rule forbids.

A rule is checked from the run facts (gradtutor.evidence.reading.run_facts, gradtutor.isolation.keras_calls),
never from the source: right values computed another way than the text asks fail with the rule's cause, and
a diagnosis never tells a learner to do what the exercise rules out ("keep every step a TensorFlow op"
where NumPy inside is the exercise).
"""
from __future__ import annotations

from gradtutor.course.manifest import Exercise
from gradtutor.course.schema import REQUIREMENTS
from gradtutor.messages import join, say
from gradtutor.protocol import Cause


def unmet_requirement(exercise: Exercise, facts: dict | None) -> tuple[Cause, str] | None:
    """The cause and line for right values computed in a way the exercise's text rules out (its `requires`)."""
    for need in exercise.requires:
        if not _met(need, facts or {}):
            return Cause(REQUIREMENTS[need]), say(f"diagnosis.requires.{need.replace('-', '_')}",
                                                  function=exercise.function, **_observed(facts or {}))
    return None


def _observed(facts: dict) -> dict:
    """What the run did, for the sentence of a broken rule: the tapes, the model calls, where weights were made."""
    made = [where for where in facts.get("weights_made") or [] if where != "build"]
    where = (say("diagnosis.requires.add_weight_where.other", methods=join(sorted(set(made))))
             if made else say("diagnosis.requires.add_weight_where.none"))
    return {"tapes": (facts.get("learner_calls") or {}).get("tapes", 0), "calls": facts.get("forward_calls", 0),
            "where": where}


def _met(need: str, facts: dict) -> bool:
    """What the recording saw (gradtutor.evidence.reading.run_facts) for each requirement of course_schema.REQUIREMENTS."""
    if need == "tape":  # a tape.gradient, jacobian, batch_jacobian or ForwardAccumulator.jvp call ran
        return facts.get("gradient_calls", 0) >= 1
    if need == "numpy":  # while recording, a value went through tf.numpy_function, .numpy() or np.*
        return bool(facts.get("numpy_function") or facts.get("left_tensorflow"))
    if need == "custom-gradient":  # a gradient function of the learner's own tf.custom_gradient ran
        return bool(facts.get("custom_gradient"))
    calls = facts.get("learner_calls") or {}
    tapes, jacobians, gradients, jvps = (calls.get(kind, 0) for kind in ("tapes", "jacobian", "gradient", "jvp"))
    if need == "one-pass":  # "one forward pass and one tape": one tape of the learner's, the model called at most once
        return tapes == 1 and facts.get("forward_calls", 0) <= 1  # (0: the layer's weights applied by hand, once)
    if need == "add-weight-in-build":  # every weight of the learner's layer made by add_weight inside its build
        made = facts.get("weights_made") or []
        return bool(made) and all(where == "build" for where in made)
    if need == "forward-mode":  # "use ForwardAccumulator, no Jacobian": acc.jvp, and no backward call of the learner's
        return jvps >= 1 and not jacobians and not gradients
    # one-jacobian ("one tape, no loop over t"): one tape whose one differentiation call is a jacobian, or
    # forward mode alone (ForwardAccumulator.jvp, one per input unit: no tape, and no loop over the steps)
    one_tape = tapes == 1 and jacobians == 1 and not gradients and not jvps
    forward = not tapes and not jacobians and not gradients and jvps >= 1
    return one_tape or forward


# A cause's own sentence whose fix an exercise's rule forbids (its `requires`): the sentence that fits that rule instead
WITHIN_RULES = {(Cause.LEAVES_TENSORFLOW, "numpy"): "diagnosis.leaves_with_numpy"}


def within_rules(exercise: Exercise, cause: Cause) -> str | None:
    """The cause's sentence for an exercise whose rules forbid the generic fix ("keep every step a TensorFlow
    op" where the exercise requires NumPy inside), or None when the generic one fits."""
    return next((say(key) for (named, need), key in WITHIN_RULES.items() if named is cause and need in exercise.requires),
                None)
