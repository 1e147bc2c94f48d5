"""A verified plan, shown: the diff with each patch's verification (terminal), one JSON object, and --apply.

--apply writes only when every patch verified and SCRIPT.orig does not exist yet; the original's
bytes are copied to SCRIPT.orig first, so `.orig` is byte-identical to what the user had. A refused
apply changes nothing and says why in one line.
"""
from __future__ import annotations

import os

from gradtutor.explain.fix.plan import Plan
from gradtutor.messages import say


def verification(item) -> str:
    if item.verified and not item.subject:  # a statement that raised: judged by the whole re-run (verify.py)
        return say("fix.report.verified_whole")
    if item.verified:
        kind = "verified_zero" if item.zero else "verified"
        text = say(f"fix.report.{kind}_compiled", subject=item.subject, steps=item.compiled_steps) \
            if item.compiled_steps else say(f"fix.report.{kind}", subject=item.subject)
        if item.fd_error is not None:
            text += "; " + say("fix.report.central", error=f"{item.fd_error:.1e}")
        if item.after:
            text += "; " + say("fix.report.unused" if "sources" in item.after else "fix.report.another", **item.after)
        return text
    return say("fix.report.not_verified", why=say(f"fix.why.{item.why}", **item.why_params))


def counts(plan: Plan) -> dict[str, int]:
    verified = sum(item.verified for item in plan.items)
    return {"verified": verified, "patched": len(plan.items), "suggested": len(plan.items) - verified,
            "manual": len(plan.manual)}


def lines(plan: Plan) -> list[str]:
    """The report as rich markup lines (escape-safe); none when there was nothing to repair."""
    from rich.markup import escape

    if not plan.items and not plan.manual:
        return []
    out = []
    for item in plan.items:
        mark = "[green]✓[/green]" if item.verified else "[yellow]?[/yellow]"
        out.append(f"{mark} {escape(say('fix.report.patch', cause=item.cause, line=item.broke_line or item.line))}"
                   f"  {escape(verification(item))}")
    for line in plan.diff.splitlines():
        colour = "green" if line.startswith("+") else "red" if line.startswith("-") else None
        out.append(f"[{colour}]{escape(line)}[/{colour}]" if colour and not line.startswith(("+++", "---"))
                   else escape(line))
    for manual in plan.manual:
        why = say(f"fix.none.{manual.reason}", **manual.params)
        out.append(f"[yellow]-[/yellow] {escape(say('fix.report.manual', cause=manual.cause, line=manual.line, why=why))}")
    out.append(escape(say("fix.report.summary", **counts(plan))))
    return out


def plain_lines(plan: Plan) -> list[str]:
    """The report's lines without markup."""
    from rich.text import Text

    return [Text.from_markup(line).plain for line in lines(plan)]


def as_dict(plan: Plan) -> dict:
    return {"diff": plan.diff, **counts(plan),
            "patches": [{"cause": item.cause, "line": item.line, "broke_line": item.broke_line,
                         "subject": item.subject, "verified": item.verified,
                         "verification": verification(item), "fd_error": item.fd_error,
                         "compiled_steps": item.compiled_steps, "another": item.after} for item in plan.items],
            "manual": [{"cause": m.cause, "line": m.line, "reason": m.reason,
                        "why": say(f"fix.none.{m.reason}", **m.params)} for m in plan.manual]}


def apply(plan: Plan) -> tuple[bool, str]:
    """Write the patch into the script, after saving the original as SCRIPT.orig: (written, the one line to say)."""
    script, backup = plan.script, plan.script + ".orig"
    if not plan.items:
        return False, say("fix.apply.refused", script=script, why=say("fix.apply.nothing"))
    unverified = sum(not item.verified for item in plan.items)
    if unverified:
        return False, say("fix.apply.refused", script=script, why=say("fix.apply.unverified", count=unverified))
    if os.path.exists(backup):
        return False, say("fix.apply.refused", script=script, why=say("fix.apply.backup_exists", backup=backup))
    with open(script, "rb") as handle:
        original = handle.read()
    if original.decode("utf-8") != plan.original:
        return False, say("fix.apply.refused", script=script, why=say("fix.apply.changed", script=script))
    with open(backup, "xb") as handle:  # never overwritten: "x" fails if it appeared meanwhile
        handle.write(original)
    with open(script, "w", encoding="utf-8", newline="") as handle:
        handle.write(plan.patched)
    return True, say("fix.apply.done", script=script, backup=backup)
