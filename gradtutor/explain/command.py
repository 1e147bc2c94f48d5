"""`gradtutor explain [--json] SCRIPT.py [ARGS…]` (or `-m MODULE [ARGS…]`): run a script in a child, then report
every gradient that came back wrong.

Exit codes: 0 every gradient was fine, 1 some were not, 2 bad input (no such script or module,
a syntax error). The script's own output, stdin, arguments, traceback and exit code are its own
(the exit code is reported, as `script_exit` in JSON); with --json stdout is one JSON object,
{"findings": [...], "script_exit": N}, and the script's own stdout goes to stderr (a pipe into a JSON reader works). Options go before the script: what follows it is the
script's, as with `python -m pdb`. Ctrl-C stops the script; the findings up to then are shown.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from gradtutor import messages
from gradtutor.explain import fix
from gradtutor.errors import UnreadableFile
from gradtutor.messages import say
from gradtutor.payloads import ExplainResult


def add_verbs(verbs) -> None:
    """Register `explain` on the CLI's subparsers."""
    p = verbs.add_parser("explain", help=say("explain.cli.help"), usage=USAGE)
    p.add_argument("--json", action="store_true", help=say("explain.cli.json"))
    p.add_argument("--html", type=Path, metavar="FILE", help=say("explain.cli.html"))
    fix.add_options(p)
    # -m takes the rest of the line, as `python -m MODULE ARGS…` does (the module's own options included)
    p.add_argument("-m", dest="module", nargs=argparse.REMAINDER, metavar="MODULE", help=say("explain.run.module"))
    p.add_argument("script", metavar="SCRIPT.py", nargs="?", help=say("explain.cli.script"))
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help=say("explain.cli.args"))
    p.set_defaults(func=cmd_explain)


OWN_FLAGS = ("--json", "--fix", "--apply", "--html")  # explain's options, which go before SCRIPT.py
USAGE = ("gradtutor explain [--json] [--html FILE] [--fix [--apply]] SCRIPT.py [ARGS…]\n"
         "       gradtutor explain [--json] [--html FILE] -m MODULE [ARGS…]")


def check_module(module: str) -> str:
    """The module's name, or an UnreadableFile error when `python -m MODULE` would not find it (one line)."""
    import importlib.util

    sys.path.insert(0, os.getcwd())  # where `python -m` looks first
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    finally:
        sys.path.pop(0)
    if spec is None:
        raise UnreadableFile(say("explain.run.no_such_module", module=module))
    return module


def check_script(script: str) -> Path:
    """The script's path, or an UnreadableFile error naming what is wrong (one line)."""
    path = Path(script)
    if not path.is_file():
        raise UnreadableFile(say("explain.error.no_such_script", script=script))
    if path.suffix.lower() == ".ipynb":  # its JSON compiles as Python, then fails on `null`: say what it is instead
        raise UnreadableFile(say("explain.error.notebook", script=script))
    try:
        source = path.read_bytes()
    except OSError as error:
        raise UnreadableFile(say("explain.error.unreadable", script=script, reason=error.strerror)) from None
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as error:
        if error.lineno is None:  # no line to point at: bytes that are no Python text (a NUL, a binary file)
            raise UnreadableFile(say("explain.error.not_python", script=script, reason=error.msg)) from None
        raise UnreadableFile(say("explain.error.syntax", script=script, line=error.lineno, reason=error.msg)) from None
    except ValueError as error:
        raise UnreadableFile(say("explain.error.not_python", script=script, reason=error)) from None
    return path


CHILD = "gradtutor.explain.child"


def run_child(script: str, args: list[str], module: bool = False, runner: str = CHILD, options: tuple = (),
              hush: bool = False, aside: bool = False) -> ExplainResult:
    """Run the script (or `-m` module) in a child process; its stdin/stdout/stderr are the terminal's; the findings
    come back on a pipe. Ctrl-C goes to the child (the whole foreground group gets it): this process waits on.

    `runner` runs it (`gradtutor.explain.fix.rerun` re-runs a patched copy, with its `options` and `hush`: the
    script's output was shown once already); `aside`: the script's stdout goes to stderr (stdout is --json's)."""
    read, write = os.pipe()
    # The findings' sentences are worded in the child: in this process's language.
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", GRADTUTOR_LANG=messages.language())
    # TensorFlow's C++ logs are quiet, as gradtutor.quiet makes them, unless the user chose a level
    quiet = "TF_CPP_MIN_LOG_LEVEL" not in env
    if quiet:
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]),
                                                      env.get("PYTHONPATH")]))
    if runner == CHILD:
        target = (["--quiet-tensorflow"] if quiet else []) + (["-m", script] if module else [script])
    else:
        target = [script, *options]
    silent = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "stdin": subprocess.DEVNULL} if hush else \
        {"stdout": _stderr_fd()} if aside else {}
    # a handler, not SIG_IGN: an ignored signal would stay ignored in the child, a handler is reset at exec
    interrupt = signal.signal(signal.SIGINT, lambda number, frame: None)
    try:
        child = subprocess.Popen([sys.executable, "-m", runner, str(write), *target, *args],
                                 pass_fds=(write,), env=env, **silent)
        os.close(write)
        with os.fdopen(read) as pipe:
            text = pipe.read()
        code = child.wait()
    finally:
        signal.signal(signal.SIGINT, interrupt)
    try:
        payload: ExplainResult = json.loads(text)
    except ValueError:
        payload = {"findings": [], "gradient_calls": 0, "died": True}
    payload["script_exit"] = code if code >= 0 else 128 - code
    return payload


def _stderr_fd() -> int:
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # a stream with no descriptor (a test's capture): the process's own
        return 2


def cmd_explain(args) -> int:
    from gradtutor.explain import findings_view as report

    if args.module:  # `-m MODULE ARGS…`
        module, *rest = args.module
        if args.fix or args.apply:
            raise UnreadableFile(say("explain.run.fix_module", module=module))
        payload = run_child(check_module(module), rest, module=True, aside=args.json)
        args.script = module
    elif args.script:
        check_script(args.script)
        misplaced = [arg for arg in args.args if arg in OWN_FLAGS]
        if misplaced:  # passed on to the script, as `python SCRIPT.py ARGS` would: said, since few scripts take them
            print(say("explain.run.flags_after", script=args.script, flags=" ".join(misplaced)), file=sys.stderr)
        payload = run_child(args.script, list(args.args), aside=args.json)
    else:
        raise UnreadableFile(say("explain.run.no_script"))
    findings, code = payload["findings"], payload["script_exit"]
    sys.stdout.flush()
    if args.html:
        args.html.write_text(report.as_html(findings, payload.get("gradient_calls", 0), payload.get("unobserved", []),
                                          payload.get("exact", [])),
                             encoding="utf-8")
    if payload.get("died"):
        print(say("explain.error.died", script=args.script, code=code), file=sys.stderr)
    if not args.json:
        report.print_text(findings, args.script, code, payload.get("gradient_calls", 0), payload.get("unobserved", []),
                          exact=payload.get("exact", []))
    plan = fix.run(args.script, list(args.args), findings, run_child, args.apply, not args.json) \
        if args.fix or args.apply else None
    if args.json:
        extra = {"fix": fix.as_dict(plan)} if plan else {}
        print(report.as_json(findings, code, unobserved=payload.get("unobserved", []), exact=payload.get("exact", []),
                             **extra), flush=True)
    return 1 if findings else 0
