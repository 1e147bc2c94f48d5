"""The findings, shown: terminal text (rich), HTML for notebooks, and one JSON line."""
from __future__ import annotations

import html
import json
import os

CALLS = {"gradient": "tape.gradient", "jacobian": "tape.jacobian", "batch_jacobian": "tape.batch_jacobian",
         "watch": "tape.watch", "tf.gradients": "tf.gradients", "apply_gradients": "optimizer.apply_gradients"}
GUIDE = "the docs' guide “Why is my gradient None?”, section Cause ids"


def _short(path: str | None) -> str:
    if not path:
        return "?"
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def lines(findings: list[dict], script: str | None = None, script_exit: int = 0, gradient_calls: int = 1) -> list[str]:
    """The report as rich markup lines (escape-safe)."""
    from rich.markup import escape

    name = escape(_short(script)) if script else "the code"
    out = []
    for finding in findings:
        where = f"{escape(_short(finding['file']))}:{finding['line']}"
        call = CALLS.get(finding["call"], finding["call"])
        times = f" (×{finding['count']})" if finding.get("count", 1) > 1 else ""
        out.append(f"[red]✗[/red] [bold]{where}[/bold]  {escape(call)}{times}  [yellow]\\[{finding['cause']}][/yellow]")
        out.append(f"  {escape(finding['message'])}")
        broke = finding.get("broke_at")
        if broke:
            out.append(f"  the path broke at {escape(_short(broke['file']))}:{broke['line']}:  "
                       f"[cyan]{escape(broke['code'])}[/cyan]")
        out.append(f"  fix: {escape(finding['fix'])}")
    ended = f"; {name} itself exited with code {script_exit}" if script_exit else ""
    if findings:
        out.append(f"{len(findings)} problem{'s' if len(findings) != 1 else ''} found in {name}{ended}; "
                   f"each cause is explained in {GUIDE}")
    elif not gradient_calls:
        out.append(f"gradtutor explain: {name} asked TensorFlow for no gradient, so there was nothing to check"
                   f"{ended}.")
    else:
        out.append(f"[green]✓[/green] every gradient {name} asked for came back fine "
                   f"({gradient_calls} call{'s' if gradient_calls != 1 else ''} checked){ended}.")
    return out


def print_text(findings, script=None, script_exit=0, gradient_calls=1, file=None) -> None:
    from rich.console import Console

    console = Console(highlight=False, file=file, soft_wrap=True)
    for line in lines(findings, script, script_exit, gradient_calls):
        console.print(line)


def as_json(findings: list[dict], script_exit: int) -> str:
    return json.dumps({"findings": findings, "script_exit": script_exit})


def as_html(findings: list[dict], gradient_calls: int = 1) -> str:
    if not findings:
        text = "every gradient came back fine" if gradient_calls else "no gradient was asked for"
        return f"<p style='color:#1a7f37'>✓ gradtutor explain: {text}</p>"
    rows = []
    for f in findings:
        broke = f.get("broke_at") or {}
        rows.append(
            "<tr><td><code>{}:{}</code></td><td><code>{}</code></td><td><b>{}</b></td>"
            "<td>{}<br><code>{}</code></td><td>{}<br><i>fix:</i> {}</td></tr>".format(
                html.escape(_short(f["file"])), f["line"], html.escape(CALLS.get(f["call"], f["call"])),
                html.escape(f["cause"]), broke.get("line", ""), html.escape(broke.get("code", "")),
                html.escape(f["message"]), html.escape(f["fix"])))
    head = "<tr><th>asked at</th><th>call</th><th>cause</th><th>path broke at</th><th>why</th></tr>"
    return ("<table style='border-collapse:collapse'>" + head + "".join(rows) + "</table>")
