"""`gradtutor explain SCRIPT.py [ARGS…]`: run a script in a child, then report every gradient that came back wrong.

Exit codes: 0 every gradient was fine, 1 some were not, 2 bad input (no such script, a
syntax error). The script's own output passes through; with --json the last line of
stdout is {"findings": [...], "script_exit": N}.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from gradtutor import messages
from gradtutor.explain import fix
from gradtutor.errors import UnreadableFile
from gradtutor.messages import say


def add_verbs(verbs) -> None:
    """Register `explain` on the CLI's subparsers."""
    p = verbs.add_parser("explain", help=say("explain.cli.help"))
    p.add_argument("--json", action="store_true", help=say("explain.cli.json"))
    p.add_argument("--html", type=Path, metavar="FILE", help=say("explain.cli.html"))
    fix.add_options(p)
    p.add_argument("script", metavar="SCRIPT.py", help=say("explain.cli.script"))
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help=say("explain.cli.args"))
    p.set_defaults(func=cmd_explain)


def check_script(script: str) -> Path:
    """The script's path, or an UnreadableFile error naming what is wrong (one line)."""
    path = Path(script)
    if not path.is_file():
        raise UnreadableFile(say("explain.error.no_such_script", script=script))
    try:
        source = path.read_bytes()
    except OSError as error:
        raise UnreadableFile(say("explain.error.unreadable", script=script, reason=error.strerror)) from None
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as error:
        raise UnreadableFile(say("explain.error.syntax", script=script, line=error.lineno, reason=error.msg)) from None
    except ValueError as error:
        raise UnreadableFile(say("explain.error.not_python", script=script, reason=error)) from None
    return path


def run_child(script: str, args: list[str], module: str = "gradtutor.explain.child", options: tuple = (),
              quiet: bool = False) -> dict:
    """Run the script in a child process; its stdout/stderr pass through; the findings come back on a pipe.

    `module` runs it (`gradtutor.explain.fix.rerun` re-runs a patched copy, with its `options` and `quiet`:
    the script's output was shown once already)."""
    read, write = os.pipe()
    # The findings' sentences are worded in the child: in this process's language.
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", GRADTUTOR_LANG=messages.language())
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]),
                                                      env.get("PYTHONPATH")]))
    hush = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "stdin": subprocess.DEVNULL} if quiet else {}
    child = subprocess.Popen([sys.executable, "-m", module, str(write), script, *options, *args],
                             pass_fds=(write,), env=env, **hush)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    code = child.wait()
    try:
        payload = json.loads(text)
    except ValueError:
        payload = {"findings": [], "gradient_calls": 0, "died": True}
    payload["script_exit"] = code if code >= 0 else 128 - code
    return payload


def cmd_explain(args) -> int:
    from gradtutor.explain import report

    check_script(args.script)
    payload = run_child(args.script, list(args.args))
    findings, code = payload["findings"], payload["script_exit"]
    sys.stdout.flush()
    if args.html:
        args.html.write_text(report.as_html(findings, payload.get("gradient_calls", 0)), encoding="utf-8")
    if payload.get("died"):
        print(say("explain.error.died", script=args.script, code=code), file=sys.stderr)
    if not args.json:
        report.print_text(findings, args.script, code, payload.get("gradient_calls", 0))
    plan = fix.run(args.script, list(args.args), findings, run_child, args.apply, not args.json) \
        if args.fix or args.apply else None
    if args.json:
        extra = {"fix": fix.as_dict(plan)} if plan else {}
        print(report.as_json(findings, code, **extra), flush=True)
    return 1 if findings else 0
