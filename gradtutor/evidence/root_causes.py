"""One finding per root cause, in the order a reader needs them (gradtutor.evidence.report).

An optimizer given the None a reported gradient call returned says nothing more than that call; a TF1 graph's
minimize and its tf.gradients that one run made NaN are one cause. Findings of one line come together, where the
first of them was: an explosion first (the NaN the program ended with; a tanh saturated on the way), then those
with a cause, then those whose cause is not known. A cause that lives in one place (a saturated layer, an op with
no gradient, a NaN made by one op: AT_THE_PLACE; a weight made and never read) is one finding however many gradient
calls it reached: fit's steps and a later tape over the same model both see the layer's flat sigmoid.
"""
from __future__ import annotations

from gradtutor.messages import say
from gradtutor.protocol import Cause

GRAPH_CALLS = {"minimize", "compute_gradients"}  # a TF1 optimizer's gradient calls (gradtutor.evidence.sessions)
NOT_KNOWN = str(Cause.NOT_KNOWN)
# causes whose break line is the place to change for every gradient call they reach (unlike a missing tape.watch,
# repaired once per tape)
AT_THE_PLACE = {str(c) for c in (Cause.SATURATION, Cause.DEAD_RELU, Cause.NON_FINITE, Cause.NO_GRADIENT_OP,
                                 Cause.INTEGER_PATH, Cause.STOP_GRADIENT)}


def one_per_root_cause(findings: list[dict]) -> list[dict]:
    """An optimizer given the None a reported gradient call returned (same cause, same broken line) is that call's
    finding, not a second one: its words join the call's finding (facts `optimizer_at`, `keras`)."""
    out: list[dict] = []
    for finding in _outside_explains(_replays_of_what_ran(findings)):
        broke = (finding["cause"], (finding["broke_at"] or {}).get("line"))
        origin = next((f for f in out if f["call"] != "apply_gradients" and
                       (f["cause"], (f["broke_at"] or {}).get("line")) == broke), None)
        if origin is not None and finding["broke_at"] is not None and {finding["call"], origin["call"]} & GRAPH_CALLS:
            origin["count"] += finding["count"]  # a tf.Graph's minimize and its tf.gradients, one run's NaN: one cause
            continue
        place = _same_place(out, finding)
        if place is not None:
            _join(place, finding)
            continue
        if finding["call"] != "apply_gradients" or origin is None or finding["broke_at"] is None:
            out.append(finding)
            continue
        keras = finding["facts"].get("keras", "")
        origin["facts"] = dict(origin["facts"], optimizer_at=f"{finding['file']}:{finding['line']}", keras=keras)
        origin["message"] = say("finding.unexplained.then_given", finding=origin["message"], line=finding["line"],
                                keras=keras)
    return _causes_first(out)


def _outside_explains(findings: list[dict]) -> list[dict]:
    """A target computed after the tape's block (outside-tape) has no recorded path to any source: a `not-used` of the
    same gradient call that broke at the same line (no path found from its sources, the LSTM's behind a loop op) is
    that root cause too, said once with all their sources (AR b02's saliency loss added up after the block)."""
    from gradtutor.evidence.reading import wording

    def key(f):
        return f["file"], f["line"], f["call"], (f["broke_at"] or {}).get("line"), f.get("symptom")

    outside = {key(f): f for f in findings if f["cause"] == str(Cause.OUTSIDE_TAPE) and f["broke_at"]}
    broke = {(f["file"], f["broke_at"].get("line")) for f in outside.values()}
    out = []
    for finding in findings:
        if finding["call"] == "apply_gradients" and finding["cause"] == str(Cause.NOT_USED) and finding["broke_at"] \
                and (finding["file"], finding["broke_at"].get("line")) in broke:  # the optimizer given those Nones:
            finding["cause"] = str(Cause.OUTSIDE_TAPE)  # joined below to the call's finding, as any optimizer's is
        kept = outside.get(key(finding))
        if kept is None or finding is kept or finding["cause"] != str(Cause.NOT_USED) or not finding["sources"]:
            out.append(finding)
            continue
        kept["sources"], kept["count"] = [*kept["sources"], *finding["sources"]], kept["count"] + finding["count"]
        kept["message"] = wording.message(kept["cause"], kept["symptom"], kept["sources"], kept["call"], kept["facts"])
    return out


def _replays_of_what_ran(findings: list[dict]) -> list[dict]:
    """The findings, less those a compiled step's eager replay gave at a call whose function read Python values it
    was traced with and the program has changed since (frozen-python-state): the replay ran that Python as it reads
    now, so it computed what the graph never did, and what it saw is no evidence about the step that ran."""
    frozen = {(f["file"], f["line"]) for f in findings if f["cause"] == str(Cause.FROZEN_PYTHON_STATE)
              and (f["facts"].get("how") in ("stale", "written") or "traced" in f["facts"])}
    return [f for f in findings if not ((f["file"], f["line"]) in frozen and f["facts"].get("rerun"))]


def _same_place(out: list[dict], finding: dict) -> dict | None:
    """The finding already kept with this one's cause at this one's break line, when that cause lives there."""
    if finding["cause"] == NOT_KNOWN and finding.get("symptom") == "nonfinite":  # NaN already in what it was computed
        return next((f for f in out if f["facts"].get("how") == "grew" and f["file"] == finding["file"]  # from: the
                     and len(f["facts"].get("statuses", "").split(",")) == len(finding["facts"].get(  # weights an
                         "statuses", "").split(","))), None)  # explosion of the same model's gradients left NaN
    broke = finding["broke_at"]
    made = finding["cause"] == str(Cause.NOT_USED) and finding["facts"].get("how") == "made"  # a weight nothing reads
    if finding["cause"] not in AT_THE_PLACE and not made or not broke or finding["call"] == "apply_gradients":
        return None
    return next((f for f in out if f["cause"] == finding["cause"] and f["call"] != "apply_gradients" and f["broke_at"]
                 and (f["broke_at"].get("file"), f["broke_at"].get("line")) == (broke.get("file"), broke.get("line"))),
                None)


def _join(kept: dict, finding: dict) -> None:
    """One more gradient call (or more gradients of the same call) reached by the kept finding's cause."""
    if (finding["file"], finding["line"]) == (kept["file"], kept["line"]):
        kept["count"] += finding["count"]
        return
    also = [*filter(None, kept["facts"].get("also_at", "").split(",")), str(finding["line"])]
    if str(finding["line"]) in also[:-1]:
        return
    message = kept["facts"].get("message_alone", kept["message"])
    kept["facts"] = dict(kept["facts"], also_at=",".join(also), message_alone=message)
    kept["message"] = say("finding.unexplained.also_at", finding=message, lines=", ".join(also))


def _causes_first(found: list[dict]) -> list[dict]:
    """The findings of one line, in the place the first of them had: an explosion first (the NaN the program ended
    with; a tanh saturated on the way), then those with a cause, then those whose cause is not known."""
    def rank(finding):
        return 0 if finding["facts"].get("how") == "grew" else 2 if finding["cause"] == NOT_KNOWN else 1

    lines: dict = {}
    for finding in found:
        lines.setdefault((finding["file"], finding["line"]), []).append(finding)
    ordered = [f for group in lines.values() for f in sorted(group, key=rank)]
    # a source that held a NaN when a later call was run again may hold it because an earlier step's update made the
    # weights it is computed from NaN: after the findings that saw where a NaN was made
    return sorted(ordered, key=lambda f: f["facts"].get("how") == "source" and f["facts"].get("rerun") == "next")
