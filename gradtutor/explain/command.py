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

from gradtutor.errors import UnreadableFile


def add_verbs(verbs) -> None:
    """Register `explain` on the CLI's subparsers."""
    p = verbs.add_parser("explain", help="run your own script and say why its gradients are None, zero or NaN")
    p.add_argument("--json", action="store_true", help="the last line of stdout is one JSON object")
    p.add_argument("--html", type=Path, metavar="FILE", help="also write the report as HTML to FILE")
    p.add_argument("script", metavar="SCRIPT.py", help="the script to run, as `python SCRIPT.py ARGS` would")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the script's own arguments")
    p.set_defaults(func=cmd_explain)


def check_script(script: str) -> Path:
    """The script's path, or an UnreadableFile error naming what is wrong (one line)."""
    path = Path(script)
    if not path.is_file():
        raise UnreadableFile(f"{script}: no such file — give the path of your Python script "
                             f"(gradtutor explain train.py)")
    try:
        source = path.read_bytes()
    except OSError as error:
        raise UnreadableFile(f"{script}: cannot be read ({error.strerror})") from None
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as error:
        raise UnreadableFile(f"{script} line {error.lineno}: {error.msg} — fix the syntax error, "
                             f"then run gradtutor explain again") from None
    except ValueError as error:
        raise UnreadableFile(f"{script}: not a Python source file ({error})") from None
    return path


def run_child(script: str, args: list[str]) -> dict:
    """Run the script in a child process; its stdout/stderr pass through; the findings come back on a pipe."""
    read, write = os.pipe()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]),
                                                      env.get("PYTHONPATH")]))
    child = subprocess.Popen([sys.executable, "-m", "gradtutor.explain.child", str(write), script, *args],
                             pass_fds=(write,), env=env)
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
        print(f"gradtutor explain: {args.script} ended before its findings could be collected "
              f"(exit code {code}); run it with `python {args.script}` to see why", file=sys.stderr)
    if args.json:
        print(report.as_json(findings, code), flush=True)
    else:
        report.print_text(findings, args.script, code, payload.get("gradient_calls", 0))
    return 1 if findings else 0
