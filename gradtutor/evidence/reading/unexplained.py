"""What the cause rules left unexplained, concluded from the recording's observations only (evidence.observations).
Every gradient call site the recording saw is read here: a gradient that came back None, all zero or NaN/inf at a
line no finding speaks for is still a finding (the line, the values seen, the causes ruled out and plainly "cause
not known"); a gradient call (or a compiled step being traced) that raised is a finding with its exception; a None
the reading judged intended (a stop_gradient keeping a source out, unconnected_gradients=ZERO) is one only when the
program then broke. Sites whose gradients were never seen are listed apart (`unobserved`)."""
from __future__ import annotations

from gradtutor.evidence import observations as seen, source_lines
from gradtutor.evidence.symptoms import UNSHOWN
from gradtutor.evidence.reading import wording
from gradtutor.evidence.recording.frames import where
from gradtutor.messages import join, say
from gradtutor.protocol import Cause, Symptom

NOT_KNOWN = Cause.NOT_KNOWN  # a finding's cause when no cause rule explained what was seen
EAGER = ("gradient", "jacobian", "batch_jacobian", "jvp")
# what the analysis (analysis.diagnose) looks for, by symptom: what a silent analysis has ruled out
RULED_OUT = {
    seen.NONE: (Cause.UNWATCHED, Cause.OUTSIDE_TAPE, Cause.LEAVES_TENSORFLOW, Cause.INTEGER_PATH,
                Cause.NO_GRADIENT_OP, Cause.STOP_GRADIENT, Cause.VARIABLE_REPLACED, Cause.STATE_BREAKS_PATH,
                Cause.NOT_USED),
    seen.ZEROS: (Cause.NOT_USED, Cause.SATURATION, Cause.DEAD_RELU, Cause.SOFTMAX_SUM, Cause.INTEGER_PATH),
    seen.NONFINITE: (Cause.NON_FINITE,),
}
SYMPTOM = {seen.NONE: Symptom.NONE, seen.ZEROS: Symptom.ZEROS, seen.NONFINITE: Symptom.NONFINITE}
# A gradient of exactly zero no cause rule explains is reported in every dtype (the all-clear is only for gradients
# finite and not all zero). The probe of the source (probe.source_moves) says which: the target does not move with
# the source (a loss weight of 0, a minimum reached exactly: zero is the exact slope, why is not known), or it does
# (float16 underflow, a piecewise-constant op). A zero asked for (unconnected_gradients=ZERO) is no finding. Flat on
# a half-precision path ("half") proves nothing: a wider replay may still move it by less than it measures.
PROBED = {False: "flat", True: "moves", None: "not run"}


def findings(record) -> list[dict]:
    """The findings the observations add to the cause rules' (gradtutor.evidence.analyse), in the order seen."""
    explained = {(f["file"], f["line"]) for f in record.findings}
    errors_explained = any(f["symptom"] == Symptom.ERROR for f in record.findings)
    sites = list(record.observations.sites.values())
    eager_at = {(s.file, s.line): s for s in sites if s.kind in EAGER}
    reported_none = any(status == seen.NONE for s in sites if s.kind in EAGER + ("compiled",) for _, status in s.bad())
    out: list[dict] = []
    raised = []
    for site in sites:
        here = (site.file, site.line)
        if site.error is not None:  # one exception is one finding: a compiled call's, not also the trace's it left
            if here not in explained and not errors_explained and not _then_raised(record.findings, site.error) \
                    and not any(f["facts"].get("error") == site.error for f in raised):
                raised.append(_raised(record, site))
            continue
        if here in explained and not _explosion_beside(record, site) or not site.bad():
            continue
        kept = _frozen_read(record, site)
        if kept is not None:  # before the compiled/eager de-duplication: an eager replay computes with the new value
            explained.add(here)
            out.append(_frozen(site, *kept))
            continue
        if site.kind == "apply_gradients" and reported_none:
            continue  # the None it was given came from a gradient call that is a finding already
        if site.kind == "compiled" and here in eager_at and eager_at[here].bad():
            continue  # re-run eagerly at the same line (graph_replay.replay): the eager site speaks
        excused = _excused(record, site)
        if excused is not None:
            if excused:
                out.append(excused)
            continue
        out.append(_underflow(record, site) or _not_known(record, site, eager_at.get(here)))
    # an intended None the program then broke on is the root cause of the exception: said once, with it
    return out + ([] if any("then_raised" in f["facts"] for f in out) else raised)


# what TensorFlow says when a None reaches an op: the None a gradient call returned, passed on by the program
FROM_NONE = ("None values not supported", "Attempt to convert a value (None)")


def _then_raised(found: list[dict], error: str) -> bool:
    """A None a finding already explains, which the program then gave to an op (tf.square(grads) of a None gradient
    in a gradient penalty): the error is that finding's consequence, told with it, not a second finding."""
    origin = next((f for f in found if f["symptom"] == Symptom.NONE), None)
    if origin is None or not any(words in error for words in FROM_NONE):
        return False
    if "then_raised" not in origin["facts"]:
        origin["facts"] = dict(origin["facts"], then_raised=error)
        origin["message"] = say("finding.unexplained.then_raised", finding=origin["message"], error=error)
    return True


def unobserved(record) -> list[dict]:
    """The call sites whose gradients were never seen, each {kind, file, line, calls, why}."""
    return [{"kind": s.kind, "file": s.file, "line": s.line, "calls": s.calls, "why": s.unobserved or "not read"}
            for s in record.observations.unobserved()]


def _excused(record, site) -> dict | None:
    """None: not an intended symptom. {}: intended, and the program went on fine. A finding: it broke on it."""
    causes = [record.excused.get(((site.file, site.line), index)) for index, _ in site.bad()]
    if not all(causes):
        return None
    if record.script_error is None:
        return {}
    (cause, broke, facts), _ = causes[0]
    status = site.bad()[0][1]
    said, kind = seen.last_line(record.script_error), type(record.script_error).__name__
    error = said if said.startswith(kind + ":") else f"{kind}: {said}"
    sources = [name for _, name in causes]
    message = say("finding.unexplained.then_raised",
                  finding=wording.message(cause, SYMPTOM[status], sources, site.kind, facts), error=error)
    found = _finding(site, cause, SYMPTOM[status], broke, message, wording.fix(cause, site.kind, sources, facts),
                     len(sources), dict(facts, then_raised=error))
    return dict(found, sources=sources)


def _not_known(record, site, replayed) -> dict:
    """`replayed`: the eager site of the same line when a compiled step was run again eagerly, else None."""
    bad = site.bad()
    worst = max((status for _, status in bad), key=seen.WORSE.get)
    values = said_values(site, bad, worst)
    probed = _probed(record, site, [index for index, status in bad if status == seen.ZEROS])
    causes = ", ".join(str(c) for c in RULED_OUT[worst])
    fix = say(f"finding.unexplained.fix_{worst}")
    exploded = _exploded(record, site) if worst == seen.NONFINITE else None
    if exploded is not None:  # the NaN's cause was seen: an overflow of values that grew (why they grew is not known)
        why, facts = exploded
        message = say("finding.unexplained.message", values=values, why=why)
        return _finding(site, Cause.NON_FINITE, SYMPTOM[worst], (site.file, site.line) if site.file else None,
                        message, say("finding.unexplained.fix_grew"), len(bad), dict(facts, how="grew"))
    if site.kind == "compiled" and site.unobserved == "graph" and worst != seen.NONFINITE:  # a Session run's values
        why = say("finding.unexplained.graph_only")
    elif site.kind == "compiled" and site.unobserved != "graph":
        later = replayed is not None and replayed.reruns == {"next"}  # only a later call ran again: not that step
        why = say("finding.unexplained." + ("came_and_went_next" if later else "came_and_went" if replayed
                                            else "compiled_only"))
    elif worst == seen.ZEROS and probed != PROBED[None]:
        why = say(f"finding.unexplained.zeros_{probed}", causes=causes)
        fix = say({"flat": "finding.unexplained.fix_zeros_flat", "half": "finding.unexplained.fix_underflow_path"}
                  .get(probed, f"finding.unexplained.fix_{worst}"))
    else:  # a NaN whose birth was not seen: say which story that leaves (not "ruled out: non-finite" alone)
        why = say("finding.unexplained.ruled_out" + ("_nonfinite" if worst == seen.NONFINITE else ""), causes=causes)
    message = say("finding.unexplained.message", values=values, why=why)
    facts = {"statuses": ",".join(site.statuses), "dtypes": ",".join(site.dtypes), "calls": str(site.calls)}
    return _finding(site, NOT_KNOWN, SYMPTOM[worst], (site.file, site.line) if site.file else None, message,
                    fix, len(bad), dict(facts, probe=probed) if worst == seen.ZEROS else facts)


def _explosion_beside(record, site) -> bool:
    """A cause rule spoke at this line (a tanh saturated on the way, a power that overflowed), yet its gradients went
    on to NaN or inf after growing a thousandfold: that explosion is a finding of its own, said first."""
    worst = max((status for _, status in site.bad()), key=seen.WORSE.get, default=None)
    return worst == seen.NONFINITE and _exploded(record, site) is not None and not any(
        f["symptom"] == Symptom.NONFINITE and (f["file"], f["line"]) == (site.file, site.line)
        and f["facts"].get("how") != "overflow" for f in record.findings)


def _exploded(record, site) -> tuple[str, dict] | None:
    """(words, facts) when the NaN or inf gradients of `site` were seen growing before they overflowed: at this site,
    or at the other sites of its line (a compiled step's monitor, and the eager runs of that step: a replay, which
    starts from weights already NaN, or Keras's step run once eagerly); None when no growth was seen."""
    facts = {"statuses": ",".join(site.statuses), "dtypes": ",".join(site.dtypes), "calls": str(site.calls)}
    grew = _growth([s for s in record.observations.sites.values() if (s.file, s.line) == (site.file, site.line)
                    and s.kind in EAGER + ("compiled",)])
    if grew is not None:
        key, (first_call, first), (peak_call, peak) = grew
        return (say(f"finding.unexplained.{key}", first=f"{first:.3g}", first_call=first_call, peak=f"{peak:.3g}",
                    peak_call=peak_call), dict(facts, grew_from=f"{first:.3g}", grew_to=f"{peak:.3g}"))
    limit = site.overflow_limit()
    if limit:
        return (say("finding.unexplained.huge", peak=f"{site.peak[1]:.3g}", peak_call=site.peak[0],
                    limit=f"{limit:.3g}", dtype=site.dtype()), dict(facts, grew_to=f"{site.peak[1]:.3g}"))
    return None


def _growth(sites):
    """(words' key, first, peak) when the gradients of one line grew GROWTH-fold between calls read before they
    turned NaN or inf, or None. A compiled step's monitor keeps their mean magnitude, an eager call their largest
    value: a largest value at the start and a mean later is a growth at least that large (a mean is never above the
    largest value), the other way round proves nothing."""
    points = [(point, one.summed) for one in sites for point in (one.first_peak, one.peak) if point is not None]
    for kind in (True, False):  # from the first sum, or from the first largest value
        starts = [p for p in points if p[1] is kind]
        if not starts:
            continue
        first, first_summed = min(starts, key=lambda p: p[0][0])
        later = [(point, summed) for point, summed in points if point[0] > first[0] and (summed or not first_summed)]
        peak, peak_summed = max(later, key=lambda p: p[0][1], default=((0, 0.0), False))
        if later and peak[1] >= seen.GROWTH * max(first[1], 1e-30):
            return ("grew_summed" if first_summed else "grew_seen" if peak_summed else "grew"), first, peak
    return None


def _probed(record, site, zeros: list[int]) -> str:
    """What moving each all-zero gradient's source did to the target (probe.source_moves): "moves" if it moved for
    one of them, "flat" if it stayed flat for every one ("half": on a half-precision path), else "not run"."""
    keys = [((site.file, site.line), index) for index in zeros]
    found = [record.zero_probes.get(key) for key in keys]
    half = any((record.underflows.get(key) or (None,))[0] == UNSHOWN for key in keys)
    return PROBED[True] if True in found else PROBED[None] if not found or None in found else \
        "half" if half else PROBED[False]


def said_values(site, bad, worst) -> str:
    """What a site's gradients were seen to be: which went wrong, how, their dtype, how many calls were seen."""
    which = join([say("finding.unexplained.which", number=index + 1, total=len(site.statuses))
                  for index, status in bad if status == worst])
    dtypes = sorted({site.dtypes[index] for index, _ in bad if site.dtypes[index]})
    return say("finding.unexplained.values", which=which, symptom=say(f"finding.symptom.{SYMPTOM[worst]}"),
               count=len(bad), total=len(site.statuses), dtype=", ".join(dtypes) or "?", calls=site.calls)


def _underflow(record, site) -> dict | None:
    """Every wrong gradient of the site is all zero, with a target below its half dtype's range (values.below_half_range)
    or a half-precision path whose target, run again in a wider float, moved (for one of them at least; the others too
    little to tell, or first seen tiny and so not probed): underflow, at the line that computed the target."""
    bad = site.bad()
    found = [record.underflows.get(((site.file, site.line), index)) for index, _ in bad]
    if not bad or any(status != seen.ZEROS for _, status in bad):
        return None
    sized = [one for one in found if one is not None and one[0] not in (None, UNSHOWN)]
    shown = [one for one in found if one is not None and one[0] is None]
    if not sized and shown:  # the path ran in half precision, and run again in a wider float the target moves
        _, made, dtype = shown[0]
        moved = len(shown) < len(found) and say("finding.unexplained.underflow_shown", shown=len(shown), count=len(found))
        message = say("finding.unexplained.underflow_path", values=said_values(site, bad, seen.ZEROS), dtype=dtype,
                      shown=moved or "")
        return _finding(site, Cause.UNDERFLOW, Symptom.ZEROS, made or (site.file, site.line), message, say(
            "finding.unexplained.fix_underflow_path"), len(bad), {"half": dtype, "probe": "moves in a wider float"})
    if not sized or None in found:
        return None
    size, made, dtype = max(sized, key=lambda one: one[0])
    message = say("finding.unexplained.underflow", values=said_values(site, bad, seen.ZEROS), target=f"{size:.3g}",
                  dtype=dtype)
    return _finding(site, Cause.UNDERFLOW, Symptom.ZEROS, made or (site.file, site.line), message,
                    wording.fix(Cause.UNDERFLOW), len(bad), {"target": f"{size:.3g}", "half": dtype})


def _frozen_read(record, site):
    """(the read, its value now, the line changing it) behind a site's None or zero gradients within a traced
    function's lines, or None (recording.compiled.python_state): a value traced as 0 or False (a factor of zero, a
    branch not taken) and something else now, which the graph never saw; or one the function's own Python changes
    (`self.step += 1`: run only when traced) in a function called since. A changed value alone is no mistake."""
    if not site.file or not any(status in (seen.NONE, seen.ZEROS) for _, status in site.bad()):
        return None
    for top, noted in ((top, one) for top in record.python_state.values() for one in (top, *top.inner)):
        if (noted.file != site.file or not noted.first <= site.line <= noted.last) and noted.at != (site.file, site.line):
            continue
        for read, now in noted.changed.values():
            if read.name not in noted.written and not read.value and now:  # 0 or False traced, another since
                return read, now, None
        for read in (one for one in noted.reads if one.name in noted.written and top.calls):
            return read, None, noted.written[read.name]
    return None


def _frozen(site, read, now, line) -> dict:
    bad = site.bad()
    worst = max((status for _, status in bad), key=seen.WORSE.get)
    values, facts = said_values(site, bad, worst), {"name": read.name, "statuses": ",".join(site.statuses)}
    if line is not None:  # its own Python changes it, which runs only when traced: said at the line that changes it
        message = say("finding.unexplained.frozen_written", values=values, name=read.name, line=line, read_line=read.line)
        return _finding(site, Cause.FROZEN_PYTHON_STATE, SYMPTOM[worst], (site.file, line), message,
                        say("finding.unexplained.fix_frozen_written", name=read.name), len(bad), {**facts, "how": "written"})
    message = say("finding.unexplained.frozen", values=values, name=read.name, traced=repr(read.value),
                  now=repr(now), read_line=read.line)
    return _finding(site, Cause.FROZEN_PYTHON_STATE, SYMPTOM[worst], (site.file, read.line), message,
                    wording.fix(Cause.FROZEN_PYTHON_STATE), len(bad), {**facts, "traced": repr(read.value), "now": repr(now)})


def _raised(record, site) -> dict:
    keyword = next(iter(record.observations.keyword_tensors.items()), None)
    if site.grad_fn_at is not None and keyword is not None and "gradients, but returned" in (site.error or ""):
        # one gradient more than the inputs TensorFlow counted: a tensor given by keyword is not one of them
        (frame, names), cause = keyword, Cause.CUSTOM_GRADIENT_SIGNATURE
        message = say("finding.unexplained.custom_gradient_keyword", call=site.kind, error=site.error,
                      names=", ".join(names), line=frame[1] if frame else "?")
        return _finding(site, cause, Symptom.ERROR, frame or site.grad_fn_at, message,
                        say("finding.unexplained.fix_custom_gradient_keyword", names=", ".join(names)), 1,
                        {"error": site.error, "keywords": ",".join(names)})
    if site.grad_fn_at is not None:  # tf.custom_gradient refused the user's gradient function (observations.py)
        cause = Cause.CUSTOM_GRADIENT_SIGNATURE
        message = say("finding.unexplained.custom_gradient", call=site.kind, error=site.error,
                      what=wording.what(cause))
        at = source_lines.refused_return(site.grad_fn_at, site.error)  # one gradient too many: its return
        return _finding(site, cause, Symptom.ERROR, at, message, wording.fix(cause), 1, {"error": site.error})
    key = "finding.unexplained.trace_raised" if site.kind == "trace" else "finding.unexplained.call_raised"
    before = say("finding.unexplained.before_any") if site.kind == "trace" and not record.gradient_calls else ""
    message = say(key, call=site.kind, error=site.error, before=before)
    at = site.error_at or ((site.file, site.line) if site.file else None)
    return _finding(site, NOT_KNOWN, Symptom.ERROR, at, message,
                    say("finding.unexplained.fix_raised"), 1, {"error": site.error})


def _finding(site, cause, symptom, broke, message, fix, count, facts) -> dict:
    return finding_at((site.file, site.line, site.kind), cause, symptom, broke, message, fix, count, facts)


def finding_at(at, cause, symptom, broke, message, fix, count, facts) -> dict:
    """A finding of no source in particular, at `at` (file, line, call kind), that broke at `broke` (file, line)."""
    file, line, call = at
    return {"file": file, "line": line, "call": call, "sources": [], "cause": str(cause), "symptom": str(symptom),
            "broke_at": where(broke), "message": message, "fix": fix, "count": count,
            "facts": {k: str(v) for k, v in facts.items()}}
