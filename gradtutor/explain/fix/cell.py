"""--fix for code that is not a script: a notebook cell (`%%explain --fix`) and `with gradtutor.explain(fix=True)`.

A cell's patch is verified in this process: the patched cell runs under the same instrumentation
in a copy of the notebook's namespace (names it binds do not leak into the notebook; objects it
changes in place, a variable assigned, do). A block in a script file is verified as the CLI does,
by re-running the whole script's patched copy in a child with the same arguments.
"""
from __future__ import annotations

import contextlib
import linecache
import os
import sys

from gradtutor.explain.fix import plan as plans
from gradtutor.explain.fix import rerun, show, verify

LABEL = "<gradtutor-fix-cell>"


def fix_cell(cell: str, findings: list[dict], namespace: dict, label: str):
    """The cell's plan, verified by running the patched cell in a copy of `namespace`."""
    plan = plans.make(label, findings, text=cell)

    def run(text: str, lines: list[int], eager: bool = False) -> dict:
        import tensorflow as tf

        from gradtutor import evidence

        linecache.cache[LABEL] = (len(text), None, text.splitlines(keepends=True), LABEL)
        code, rerun.RERUNNING = 0, True
        was_eager = tf.config.functions_run_eagerly()
        tf.config.run_functions_eagerly(eager or was_eager)  # eager: a compiled zero measured (verify.py)
        try:
            with rerun.capturing(LABEL, set(lines)) as (seen, errors, compiled):
                with evidence.recording() as record, open(os.devnull, "w") as sink, \
                        contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):  # shown once already
                    try:
                        exec(compile(text, LABEL, "exec"), dict(namespace))  # noqa: S102 - the user's cell, patched
                    except Exception:  # noqa: BLE001 - the patched cell failing is the verification's finding
                        code = 1
                found = evidence.analyse(record)
        finally:
            rerun.RERUNNING = False
            tf.config.run_functions_eagerly(was_eager)
        return {"findings": found, "script_exit": code, "gradients": {str(k): v for k, v in seen.items()},
                "central": {str(k): v for k, v in errors.items()}, "compiled": {str(k): v for k, v in compiled.items()}}

    if plan.items:
        verify.rounds(plan, LABEL, run)
    return plan


def show_cell_fix(cell: str, record, namespace: dict) -> None:
    from gradtutor import evidence

    findings = evidence.analyse(record)
    label = label_of(cell, findings)
    if label is not None:
        display(fix_cell(cell, findings, namespace, label), cell)


def label_of(cell: str, findings: list[dict]) -> str | None:
    """The name the cell was compiled under: the findings' file whose source is the cell."""
    for file in dict.fromkeys(f.get("file") for f in findings if f.get("file")):
        if "".join(linecache.getlines(file)).strip() == cell.strip() or file.startswith("<"):
            return file
    return None


def fix_block(file: str, findings: list[dict], namespace: dict):
    """`with gradtutor.explain(fix=True)` ended: the patch for the file the block is in, verified (None: no patch)."""
    if rerun.RERUNNING or not findings:
        return None
    if os.path.isfile(file):
        from gradtutor.explain.command import run_child

        plan = plans.make(file, findings)
        verify.run_copy(plan, sys.argv[1:], run_child)
        return plan
    cell = "".join(linecache.getlines(file))
    return fix_cell(cell, findings, namespace, file) if cell else None


def html(plan, original: str) -> str:
    """The original cell beside the patched one, each patch's verification below."""
    import html as escape

    notes = [escape.escape(show.verification(item)) for item in plan.items]
    notes += [escape.escape(line) for line in show.plain_lines(plan) if line.startswith(("- ", "fix: "))]
    cells = "".join(f"<td style='vertical-align:top'><pre>{escape.escape(text)}</pre></td>"
                    for text in (original, plan.patched))
    return (f"<table><tr>{cells}</tr></table>" + "".join(f"<div>{note}</div>" for note in notes))


def display(plan, original: str) -> None:
    from gradtutor.explain.findings_view import in_a_kernel

    if in_a_kernel():
        try:
            from IPython.display import HTML
            from IPython.display import display as shown

            shown(HTML(html(plan, original)))
            return
        except ImportError:
            pass
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=True)
    for line in show.lines(plan):
        console.print(line)
