"""`gradtutor explain --fix`: a patch for each finding with a mechanical repair, verified by re-running a copy.

    gradtutor explain --fix train.py ARGS          # the diff, each patch marked verified or not
    gradtutor explain --fix --apply train.py ARGS  # and written, when every patch verified (train.py.orig kept)

Modules: source (the file's text, tree and edits; the diff), context and repairs (one source
transformation per cause), plan (findings → one patch), rerun (the patched copy's child:
the gradients its calls returned), central (the central-difference cross-check), verify
(scratch copy, re-run, judgement, follow-up rounds), show (terminal, JSON, --apply), cell
(`%%explain --fix`, `with gradtutor.explain(fix=True)`). The user's file is only read, except
by --apply.
"""
from __future__ import annotations

import sys

from gradtutor.messages import say


def add_options(parser) -> None:
    parser.add_argument("--fix", action="store_true", help=say("fix.cli.fix"))
    parser.add_argument("--apply", action="store_true", help=say("fix.cli.apply"))


def run(script: str, args: list[str], findings: list[dict], run_child, apply: bool = False, show: bool = True):
    """Patch, verify (re-running the copy with explain's `run_child`) and, with apply, write; prints the report
    when `show`; returns the plan."""
    from gradtutor.explain.fix import plan as plans
    from gradtutor.explain.fix import show as shown
    from gradtutor.explain.fix import verify

    plan = plans.make(script, findings)
    verify.run_copy(plan, args, run_child)
    if show:
        from rich.console import Console

        console = Console(highlight=False, soft_wrap=True)
        for line in shown.lines(plan):
            console.print(line)
    if apply:
        written, said = shown.apply(plan)
        print(said, file=sys.stdout if written and show else sys.stderr)  # with --json, stdout is the JSON alone
    return plan


def as_dict(plan) -> dict:
    from gradtutor.explain.fix import show

    return show.as_dict(plan)
