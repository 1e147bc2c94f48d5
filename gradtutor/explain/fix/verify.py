"""A patch is a guess until it has run: the patched copy is re-run in a scratch folder and each repaired gradient checked.

The copy runs as the script did (same arguments, same working directory, the script's own
folder still importable), under the same instrumentation; the user's file is only read.
A repaired finding is verified when the re-run finds nothing of its cause at its gradient call and every
gradient asked there came back: none None, all finite, and not every one of them all zero unless the
central difference measured zero to be the target's true slope there (fix/central.py). Another cause the re-run
finds at that call once this one is gone (a saturation behind a NaN) is said beside the verdict (Item.after).
A gradient asked inside a traced tf.function is a symbol with no value: it is verified only
from what the compiled analysis knows — not None when traced, and the in-graph checks of
every compiled step it ran in (gradtutor/evidence/recording/compiled/traced.py) saw no NaN/inf and not all zeros.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from gradtutor.explain.fix.central import TOLERANCE
from gradtutor.explain.fix.plan import Plan, make

ROUNDS = 5  # a NumPy loss is repaired a step a round (.numpy(), then np.abs, np.where, np.mean in the function)
# findings whose line asks for no gradient: judged by the whole re-run (_judge_whole_run)
ASKS_NO_GRADIENT = ("raised", "watch", "whole")


def lines_to_check(plan: Plan) -> list[int]:
    return sorted({line for item in plan.items if (line := plan.moved(item.line)) is not None})


def judge(plan: Plan, rerun: dict, copy: str) -> None:
    """Mark each item of the plan verified, or say why not (fix.why.* ids)."""
    for item in plan.items:
        line = plan.moved(item.line)
        item.verified, item.why_params = False, {"subject": item.subject, "line": line, "code": rerun["script_exit"]}
        # an all-zero gradient no rule explains whose target the probe found flat (a bias that cancels) is judged below
        # with the call's other gradients; one not probed, or whose target moves, is still a zero the user must mend
        still = [f for f in rerun.get("findings", []) if f.get("line") == line and f.get("file") == copy
                 and ((f.get("cause"), f.get("symptom")) != ("not-known", "zeros")
                      or (f.get("facts") or {}).get("probe") != "flat")]
        calls = rerun.get("gradients", {}).get(str(line), [])
        unused = [f for f in still if _unused_of(f, item)]
        bad = next((s for s in ("none", "nonfinite") if any(call.count(s) > _explained(s, unused) for call in calls)),
                   None)
        # another cause found there once this one is gone (a saturation behind a NaN): this patch is judged by the
        # gradients like any other, and the other cause is said beside its verdict; one whose gradients are still
        # None or NaN is repaired in the next round (rounds); the same symptom again (zeros after a dead ReLU's
        # repair, from a layer before it) is the finding still there, whatever cause it is given now — but for
        # sources the target does not depend on at all (unused: the penalty on an input gradient has no path to
        # the output bias), whose None is the true answer once the rest of the path is recorded
        other = [f for f in still if f["cause"] != item.cause and f.get("symptom") != item.symptom] + unused
        item.after = _after(other[0]) if other and len(other) == len(still) and not bad else None
        if rerun.get("died"):
            item.why = "died"
        elif line is None:
            item.why = "moved"
        elif still and item.after is None:
            item.why, item.why_params["cause"] = "still_found", still[0]["cause"]
        elif not calls and item.call in ASKS_NO_GRADIENT:
            _judge_whole_run(item, rerun, copy)
        elif not calls:
            item.why = "not_reached"
        elif bad:
            item.why = bad
        elif any("traced" in call for call in calls):
            _judge_compiled(item, rerun.get("compiled", {}).get(str(line)) or {})
        else:
            _judge_central(item, rerun.get("central", {}).get(str(line)),
                           any(all(s == "zero" for s in call) for call in calls))
        if item.verified and rerun.get("script_exit"):  # the gradient mended, the program still failing: no fix yet
            item.verified, item.why = False, "exited"


def _after(finding: dict) -> dict:
    """Another cause the re-run found at the repaired call: its id and the patched copy's line where it broke (and
    the sources, for a None of sources the target does not use)."""
    after = {"cause": finding["cause"], "line": (finding.get("broke_at") or {}).get("line") or finding.get("line")}
    if finding["cause"] == "not-used":
        after["sources"] = ", ".join(finding.get("sources") or ())
    return after


def _unused_of(finding: dict, item) -> bool:
    """A None the re-run finds for some of the repaired finding's sources, none of whose path to the target exists
    (not-used): the repair brought the others back, and these the target never reached. All of them still None,
    or any the repaired finding did not name, is no progress of this repair's."""
    named, repaired = _names(finding.get("sources") or ()), _names(item.sources)
    return (finding.get("cause") == "not-used" != item.cause and finding.get("symptom") == item.symptom == "none"
            and bool(named) and named < repaired)


def _names(sources) -> Counter:
    """The sources' names without Keras's numbering (`dense_3/bias` → `dense/bias`): a copy re-run in the same
    process (a notebook, the corpus runner) makes its layers again under new numbers."""
    return Counter(re.sub(r"_\d+(?=/|:|$)", "", name) for name in sources)


def _explained(status: str, unused: list[dict]) -> int:
    """How many gradients of one call those findings account for: the Nones of sources the target does not use."""
    return sum(len(f.get("sources") or ()) for f in unused) if status == "none" else 0


def _judge_central(item, error: float | None, all_zero: bool) -> None:
    """Eager values: verified when the central difference agrees (fix/central.py; no number: nothing against it).
    A call whose every gradient is zero is verified only when the central difference was measured and says zero
    is the target's slope there (a norm's or a sinc's at 0 behind a double where); unmeasured, it stays a guess."""
    error = None if error is None else float(error)  # (a numpy number's comparisons give numpy bools: JSON refuses)
    item.fd_error = error
    if all_zero:
        item.verified = item.zero = error is not None and error <= TOLERANCE
        item.why = "" if item.verified else "zero"
    else:
        item.verified = error is None or error <= TOLERANCE
        item.why = "" if item.verified else "central"
    item.why_params["error"] = f"{error:.1e}" if error is not None else ""


def _judge_whole_run(item, rerun: dict, copy: str) -> None:
    """A finding at a line that asks for no gradient (a statement that raised, a refused watch): there is no gradient
    of its own to check, so the repair is verified only when the whole re-run earns explain's all-clear — the copy
    ran to its end (exit code 0) and explain found nothing anywhere in it (every gradient it asked for observed, and
    none None, NaN or all zero: gradtutor.evidence.reading)."""
    if rerun.get("script_exit") or rerun.get("unobserved"):  # ended early, or some gradient was never seen
        item.why = "not_reached"
    elif any(f.get("file") == copy for f in rerun.get("findings", [])):
        found = next(f for f in rerun["findings"] if f.get("file") == copy)
        item.why = "still_found"
        item.why_params.update(cause=found["cause"], line=found.get("line"))
    else:
        item.verified, item.why = True, ""


def _judge_compiled(item, checked: dict) -> None:
    """A traced gradient: verified only when the in-graph checks ran in at least one compiled step and saw no
    NaN/inf (monitors.CODES 3) and not every gradient of a call all zeros (2), as for eager values above."""
    steps, codes = checked.get("steps", 0), checked.get("codes", [])
    item.why_params["steps"] = steps
    if steps == 0 or not codes:
        item.why = "unchecked"
    elif any(code >= 3 for call in codes for code in call):
        item.why = "nonfinite"
    elif any(call and all(code == 2 for code in call) for call in codes):
        item.why = "zero"
    else:
        item.verified, item.why, item.compiled_steps = True, "", steps


def rounds(plan: Plan, copy: str, run) -> None:
    """Re-run and judge; while a repaired call still fails with a new repairable finding, repair that too and again.

    `run(text, lines, eager=False)` runs the patched text as `copy` (its tf.functions run eagerly if `eager`) and
    returns the re-run's payload. Like cargo fix,
    a few rounds: a tape made persistent may show that the second target was computed outside it.
    """
    for round_ in range(ROUNDS):
        rerun = run(plan.patched, lines_to_check(plan))
        judge(plan, rerun, copy)
        failed = {plan.moved(item.line) for item in plan.items if item.why == "still_found"}
        found = [f for f in rerun.get("findings", []) if f.get("file") == copy and f.get("line") in failed]
        # a statement that raised, once repaired, lets the copy run on to the next of its kind (np.abs on the line
        # after): that one is repaired in the next round too, and the whole run still has to come out clean
        kinds = {(item.cause, item.call) for item in plan.items if item.call in ASKS_NO_GRADIENT
                 and item.why in ("still_found", "not_reached")}
        found += [f for f in rerun.get("findings", []) if f.get("file") == copy and f not in found
                  and (f.get("cause"), f.get("call")) in kinds]
        # a NaN still there after its guard is not guarded again: another where around the guarded operand nests one
        # more level each round and mends nothing (z / norm(z) at 0 is 0 / 0 whatever the sqrt's guard)
        guarded = {plan.moved(item.broke_line) for item in plan.items if item.cause == "non-finite"}
        found = [f for f in found if not (f.get("cause") == "non-finite" and (f.get("broke_at") or {}).get("line")
                                          in guarded)]
        if not found or round_ == ROUNDS - 1:
            _zero_when_compiled(plan, run)
            return
        more = make(copy, found, text=plan.patched)
        if not more.edits:
            return
        plan.extend(more)


def _zero_when_compiled(plan: Plan, run) -> None:
    """A traced gradient the in-graph checks saw all zero has no values to measure a central difference on: the copy
    is run once more with its compiled functions run eagerly (`run(text, lines, eager=True)`), and the item is
    verified when that run's gradient there is all zero too and central differences measure zero as the slope."""
    items = [item for item in plan.items if item.why == "zero" and item.why_params.get("steps")]
    if not items:
        return
    rerun = run(plan.patched, lines_to_check(plan), eager=True)
    for item in items:
        line = plan.moved(item.line)
        calls = rerun.get("gradients", {}).get(str(line), [])
        if rerun.get("died") or not calls or any(s != "zero" for call in calls for s in call):
            continue  # not seen eagerly, or not all zero there: no measurement, it stays a suggestion
        steps = item.why_params["steps"]
        _judge_central(item, rerun.get("central", {}).get(str(line)), True)
        item.why_params["steps"] = steps
        if item.verified:
            item.compiled_steps = steps


def run_copy(plan: Plan, args: list[str], run_child) -> None:
    """Write the patched copy into a scratch folder, re-run it in a child process, and judge the plan.

    `run_child` is explain's (gradtutor.explain.command.run_child), given by the caller."""
    if not plan.items:
        return
    folder = tempfile.mkdtemp(prefix="gradtutor-fix-")
    try:
        copy = os.path.join(folder, os.path.basename(plan.script))
        home = os.path.dirname(os.path.abspath(plan.script))

        def run(text: str, lines: list[int], eager: bool = False) -> dict:
            Path(copy).write_text(text, encoding="utf-8")
            spec = json.dumps({"lines": lines, "eager": True} if eager else lines)
            rerun = run_child(copy, args, runner="gradtutor.explain.fix.rerun", options=(home, spec), hush=True)
            rerun.setdefault("gradients", {})
            return rerun

        rounds(plan, copy, run)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
