"""One sentence per cause: what the code did, and the fix — in the catalogue's words.

The sentences are the message catalogue's (gradtutor/messages/<lang>/cause.toml, `what` and
`fix` of each cause id), the same table the checker's diagnoses are worded from; this module
puts a finding's subject, symptom and sources around them.
"""
from __future__ import annotations

from gradtutor.messages import has, join, say
from gradtutor.protocol import Cause, Symptom

# what a finding can report (values: a gradient that came back but misses the terms of a value that left TensorFlow)
SYMPTOMS = (Symptom.NONE, Symptom.ZEROS, Symptom.TINY, Symptom.NONFINITE, Symptom.ERROR, Symptom.VALUES)
SHOWN = 4  # variables named in a sentence; the finding's `sources` lists them all


def what(cause: str, facts=None) -> str:
    """What the code did, for a cause id ("" for a cause the catalogue has no sentence for)."""
    return say(_keyed(cause, "what", facts)) if has(f"cause.{cause}.what") else ""


def _keyed(cause: str, part: str, facts) -> str:
    """cause.<id>.<part>, or its variant for how the finding's op went wrong (values.how_made: an exp that overflowed
    and a log of a negative number need other words and fixes than a sqrt at 0) where the catalogue has one."""
    how = (facts or {}).get("how")
    return f"cause.{cause}.{how}_{part}" if how and has(f"cause.{cause}.{how}_{part}") else f"cause.{cause}.{part}"


# a variable the target read with no gradient asked for (untracked.py): its sentence, by the fact it records
UNASKED = {("sources", "empty list"): "explain.finding.no_sources",
           ("keras", "untracked tf.Variable"): "explain.finding.untracked"}


def _unasked(facts) -> str | None:
    return next((key for (fact, value), key in UNASKED.items() if (facts or {}).get(fact) == value), None)


def message(cause: str, symptom: str, sources: list[str], call: str = "gradient", facts=None) -> str:
    happened = what(cause, facts)
    names = join(sources)
    if call == "fit":  # Keras's train_step skipped the gradients: the model has no trainable weights
        return say("explain.finding.no_trainable_weights" + ("_frozen" if (facts or {}).get("why") == "frozen" else ""))
    if _unasked(facts) == "explain.finding.no_sources":
        return say("explain.finding.no_sources")
    if _unasked(facts) is not None:
        return say("explain.finding.untracked", sources=names)
    if call == "apply_gradients":
        if not sources:
            return say("finding.optimizer.empty")
        return say("finding.optimizer.because", said=say(f"finding.optimizer.{symptom}", sources=names),
                   why=happened)
    if len(sources) > 1:  # one finding for the variables that went wrong the same way
        names = join(sources[:SHOWN] + (["…"] if len(sources) > SHOWN else []))
        subject = say("explain.finding.subject_many", count=len(sources), sources=names)
    else:
        subject = say("finding.subject_sources", sources=names) if sources else say("finding.subject_tape")
    if call == "gradient" and not sources and (facts or {}).get("why") == "frozen":  # checks._no_sources
        return say("finding.no_sources.frozen")
    if call == "gradient" and not sources and cause in (Cause.NOT_USED, Cause.UNWATCHED) and symptom != "error":
        return say(f"finding.no_sources.{Cause(cause).name.lower()}")  # tape.gradient(loss, []): checks._no_sources
    if (facts or {}).get("restarted"):  # analysis.restarted: a variable made again from its first value each step
        return say("finding.restarted", sources=names)
    if (facts or {}).get("unentered"):  # forward.py: a ForwardAccumulator never entered with `with`
        return say("finding.unentered", sources=names)
    if (facts or {}).get("dropped"):  # analysis._dropped_write: a TensorArray write whose result was not kept
        return say("finding.dropped", sources=names)
    if call == "raised":  # the code itself raised (raised.py): TensorFlow refused a step that breaks the path
        refused = (facts or {}).get("refused")
        return say("finding.code_raised", error=(facts or {}).get("error", ""),
                   why=say(f"finding.refused.{refused}") if refused else happened)
    if symptom == "error" and (facts or {}).get("how") == "dtype":  # checks.watch: TensorFlow warned, not raised
        return happened
    if symptom == "error":
        return say("finding.raised", subject=subject, why=happened)
    shown = say(f"finding.symptom.{symptom}") if symptom in SYMPTOMS else symptom
    if (facts or {}).get("zero_entries"):  # analysis.zero_where_saturated: zero at some entries, not all
        zero, _, size = facts["zero_entries"].partition("/")
        shown = say("finding.symptom.some_zero", count=zero, size=size)
    return say("explain.finding.are" if len(sources) > 1 else "finding.is", subject=subject, symptom=shown,
               why=happened)


def fix(cause: str, call: str = "gradient", sources: list[str] | None = None, facts=None) -> str:
    if (facts or {}).get("restarted"):
        return say("finding.restarted_fix")
    if (facts or {}).get("why") == "frozen" and not sources:
        return say("finding.no_sources.frozen_fix")
    if (facts or {}).get("unentered"):
        return say("finding.unentered_fix")
    if (facts or {}).get("dropped"):
        return say("finding.dropped_fix")
    if (facts or {}).get("refused"):  # raised.py: TensorFlow refused the step; its own fix
        return say(f"finding.refused.{facts['refused']}_fix")
    if call == "fit" or call == "apply_gradients" and not sources or _unasked(facts) is not None:
        return say("finding.optimizer.empty_fix")
    return say(_keyed(cause, "fix", facts)) if has(f"cause.{cause}.fix") else ""
