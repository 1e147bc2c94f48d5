"""The findings, shown: terminal text (rich), HTML for notebooks, and one JSON line.

The words are the message catalogue's (gradtutor/messages/<lang>/explain.toml, ids `explain.*`),
looked up when a report is made, so `--lang` and GRADTUTOR_LANG apply; the JSON keeps its
stable keys, cause ids and call names.
"""
from __future__ import annotations

import html
import json
import os
import sys

from gradtutor.messages import say

CALLS = {"gradient": "tape.gradient", "jacobian": "tape.jacobian", "batch_jacobian": "tape.batch_jacobian",
         "watch": "tape.watch", "tf.gradients": "tf.gradients", "apply_gradients": "optimizer.apply_gradients", "fit": "Model.fit",
         "minimize": "optimizer.minimize", "compute_gradients": "optimizer.compute_gradients"}
# What the quoted line of a finding is, where it is not an op that cut the path: an unwatched source's line is where
# the source was made (nothing broke there); a NaN's is the first op whose gradient is not finite at its values; a
# compiled function's frozen Python state is the line its code read the value (or the variable) at.
SITE_LABELS = {"unwatched": "unwatched_at", "non-finite": "nonfinite_at", "frozen-python-state": "read_at",
               ("unwatched", "outer"): "outer_at", ("unwatched", "read"): "unwatched_read_at",
               ("frozen-python-state", "trainable"): "unfrozen_at", ("frozen-python-state", "written"): "written_at",
               ("not-used", "overwritten"): "overwritten_at",
               ("non-finite", "swapped"): "swapped_at", ("non-finite", "grew"): "grew_at",
               ("non-finite", "source"): "source_at", ("non-finite", "data"): "data_at", ("not-used", "made"): "unused_made_at"}

# how a compiled step's finding was looked into: the step after it, or the step itself again
RERUN = {"same": "_again", "kept": "_kept", "kept_first": "_kept_first"}

# why a call site's gradients were never seen (gradtutor.evidence.recording.instrument.observed), with words of its own
UNOBSERVED_WHY = ("compiled", "graph")


def _short(path: str | None) -> str:
    if not path:
        return "?"
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def lines(findings: list[dict], script: str | None = None, script_exit: int = 0, gradient_calls: int = 1,
          unobserved=(), exact=()) -> list[str]:
    """The report as rich markup lines (escape-safe). The all-clear only when there is no finding and every call
    site was observed (`unobserved`: the sites whose gradients were never seen, gradtutor.evidence.report); an
    all-zero gradient shown to be exact (`exact`: gradtutor.evidence.exact_zeros) is said below it."""
    from rich.markup import escape

    name = escape(_short(script)) if script else None
    block = "" if script else "block_"  # a block in Python: its sentences name no script
    out = []
    for finding in findings:
        where = f"{escape(_short(finding['file']))}:{finding['line']}" if finding["file"] else \
            escape(say("explain.report.no_site"))  # asked by TensorFlow itself (a py_function's backward pass)
        call = CALLS.get(finding["call"], finding["call"])
        times = f" (×{finding['count']})" if finding.get("count", 1) > 1 else ""
        out.append(f"[red]✗[/red] [bold]{where}[/bold]  {escape(call)}{times}  [yellow]\\[{finding['cause']}][/yellow]")
        out.append(f"  {escape(finding['message'])}")
        broke, facts = finding.get("broke_at"), finding.get("facts") or {}
        if broke:
            label = "layer_at" if facts.get("layer") else \
                SITE_LABELS.get((finding["cause"], facts.get("how"))) or SITE_LABELS.get(finding["cause"], "broke_at")
            broke_at = say(f"explain.report.{label}", where=f"{escape(_short(broke['file']))}:{broke['line']}")
            out.append(f"  {broke_at}  [cyan]{escape(broke['code'])}[/cyan]")
        for fact in ("first_step", "first_seen_step"):  # compiled steps; sampled eager tapes
            if facts.get(fact):
                # the step itself, run again from its start
                key = fact + (RERUN.get(facts.get("rerun"), "") if fact == "first_step" else "")
                out.append(f"  {escape(say(f'explain.compiled.{key}', step=facts[fact]))}")
        out.append(f"  {say('explain.report.fix', fix=escape(finding['fix']))}")
    named = {"name": name} if script else {}
    ended = say(f"explain.report.{block}exited", code=script_exit, **named) if script_exit else ""
    if unobserved:
        out.append(f"[yellow]?[/yellow] {escape(_unobserved(unobserved))}")
    if findings:
        found = f"explain.report.{block}found_{'one' if len(findings) == 1 else 'many'}"
        out.append(say(found, count=len(findings), ended=ended, guide=say("explain.report.guide"), **named))
    elif not gradient_calls and not unobserved:  # asked, though never seen: the "?" line says so
        out.append(say(f"explain.report.{block}no_gradient", ended=ended, **named))
    elif not unobserved and any(seen.get("tiny") or seen.get("why") == "kept" for seen in exact):  # not known fine
        kind = "kept" if any(seen.get("why") == "kept" for seen in exact) else "finite"  # (a None is not "finite")
        finite = f"explain.report.{block}{kind}_{'one' if gradient_calls == 1 else 'many'}"
        out.append(f"[yellow]?[/yellow] {say(finite, count=gradient_calls, ended=ended, **named)}")
    elif not unobserved:
        fine = f"explain.report.{block}fine_{'one' if gradient_calls == 1 else 'many'}"
        out.append(f"[green]✓[/green] {say(fine, count=gradient_calls, ended=ended, **named)}")
    for zero in exact:  # seen, and not a finding: said, so the all-clear does not hide it
        out.append("  " + escape(_exact(zero)))
    return out


def _exact(zero: dict) -> str:
    """An all-zero gradient shown to be its true value, or a site whose every gradient was tiny
    (gradtutor.evidence.exact_zeros), in one sentence."""
    if zero.get("tiny"):
        return say("explain.report.tiny", where=f"{_short(zero['file'])}:{zero['line']}",
                   kind=CALLS.get(zero["kind"], zero["kind"]), calls=zero["calls"])
    at = zero["at"] or {}
    key = {"stationary": "explain.report.exact_stationary", "kept": "explain.report.kept_out"}.get(
        zero.get("why"), "explain.report.exact")
    return say(key, sources=", ".join(zero["sources"]), where=f"{_short(zero['file'])}:{zero['line']}",
               at=f"{_short(at.get('file'))}:{at.get('line', '?')}", code=at.get("code", ""))


def _unobserved(sites) -> str:
    named = [say("explain.report.unobserved_site", where=f"{_short(s['file'])}:{s['line']}", kind=s["kind"],
                 calls=s["calls"], why=say(f"explain.report.unobserved_{s['why']}" if s["why"] in UNOBSERVED_WHY
                                           else "explain.report.unobserved_other")) for s in sites]
    return say("explain.report.unobserved", count=len(sites), sites="; ".join(named))


def print_text(findings, script=None, script_exit=0, gradient_calls=1, unobserved=(), file=None, exact=()) -> None:
    from rich.console import Console

    console = Console(highlight=False, file=file, soft_wrap=True)
    for line in lines(findings, script, script_exit, gradient_calls, unobserved, exact):
        console.print(line)


def as_json(findings: list[dict], script_exit: int, **extra) -> str:
    return json.dumps({"findings": findings, "script_exit": script_exit, **extra})


def as_html(findings: list[dict], gradient_calls: int = 1, unobserved=(), exact=()) -> str:
    """The report as HTML; an all-zero gradient shown to be exact is said below it, as in the text report."""
    zeros = "".join(f"<p style='color:#57606a'>{html.escape(_exact(zero))}</p>" for zero in exact)
    return _html(findings, gradient_calls, unobserved, any(seen.get("tiny") or seen.get("why") == "kept"
                                                           for seen in exact)) + zeros


def _html(findings: list[dict], gradient_calls: int, unobserved, tiny: bool = False) -> str:
    if not findings and unobserved:
        return f"<p style='color:#9a6700'>? {html.escape(_unobserved(unobserved))}</p>"
    if not findings and tiny and gradient_calls:  # finite and not zero, but not known to be fine: no ✓
        return f"<p style='color:#9a6700'>? {html.escape(say('explain.html.finite'))}</p>"
    if not findings:
        text = say("explain.html.fine") if gradient_calls else say("explain.html.no_gradient")
        return f"<p style='color:#1a7f37'>✓ {html.escape(text)}</p>"
    rows = []
    for f in findings:
        broke = f.get("broke_at") or {}
        rows.append(
            "<tr><td><code>{}:{}</code></td><td><code>{}</code></td><td><b>{}</b></td>"
            "<td>{}<br><code>{}</code></td><td>{}<br><i>{}</i> {}</td></tr>".format(
                html.escape(_short(f["file"])), f["line"], html.escape(CALLS.get(f["call"], f["call"])),
                html.escape(f["cause"]), broke.get("line", ""), html.escape(broke.get("code", "")),
                html.escape(f["message"]), html.escape(say("explain.html.fix")), html.escape(f["fix"])))
    head = "<tr>" + "".join(f"<th>{html.escape(say(f'explain.html.{column}'))}</th>"
                            for column in ("asked_at", "call", "cause", "broke_at", "why")) + "</tr>"
    return "<table style='border-collapse:collapse'>" + head + "".join(rows) + "</table>"


def in_a_kernel() -> bool:
    """Jupyter's kernel runs this code (its shell has a kernel), not merely a process that imported ipykernel:
    HTML is shown only where a front end renders it."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None
