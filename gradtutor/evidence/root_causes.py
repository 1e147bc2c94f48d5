"""One finding per root cause, in the order a reader needs them (gradtutor.evidence.report).

An optimizer given the None a reported gradient call returned says nothing more than that call; a TF1 graph's
minimize and its tf.gradients that one run made NaN are one cause. Findings of one line come together, where the
first of them was: an explosion first (the NaN the program ended with; a tanh saturated on the way), then those
with a cause, then those whose cause is not known.
"""
from __future__ import annotations

from gradtutor.messages import say
from gradtutor.protocol import Cause

GRAPH_CALLS = {"minimize", "compute_gradients"}  # a TF1 optimizer's gradient calls (gradtutor.evidence.sessions)
NOT_KNOWN = str(Cause.NOT_KNOWN)


def one_per_root_cause(findings: list[dict]) -> list[dict]:
    """An optimizer given the None a reported gradient call returned (same cause, same broken line) is that call's
    finding, not a second one: its words join the call's finding (facts `optimizer_at`, `keras`)."""
    out: list[dict] = []
    for finding in findings:
        broke = (finding["cause"], (finding["broke_at"] or {}).get("line"))
        origin = next((f for f in out if f["call"] != "apply_gradients" and
                       (f["cause"], (f["broke_at"] or {}).get("line")) == broke), None)
        if origin is not None and finding["broke_at"] is not None and {finding["call"], origin["call"]} & GRAPH_CALLS:
            origin["count"] += finding["count"]  # a tf.Graph's minimize and its tf.gradients, one run's NaN: one cause
            continue
        if finding["call"] != "apply_gradients" or origin is None or finding["broke_at"] is None:
            out.append(finding)
            continue
        keras = finding["facts"].get("keras", "")
        origin["facts"] = dict(origin["facts"], optimizer_at=f"{finding['file']}:{finding['line']}", keras=keras)
        origin["message"] = say("finding.unexplained.then_given", finding=origin["message"], line=finding["line"],
                                keras=keras)
    return _causes_first(out)


def _causes_first(found: list[dict]) -> list[dict]:
    """The findings of one line, in the place the first of them had: an explosion first (the NaN the program ended
    with; a tanh saturated on the way), then those with a cause, then those whose cause is not known."""
    def rank(finding):
        return 0 if finding["facts"].get("how") == "grew" else 2 if finding["cause"] == NOT_KNOWN else 1

    lines: dict = {}
    for finding in found:
        lines.setdefault((finding["file"], finding["line"]), []).append(finding)
    return [f for group in lines.values() for f in sorted(group, key=rank)]
