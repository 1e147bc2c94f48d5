"""The child of `gradtutor explain`: run the user's script as `python SCRIPT.py ARGS` would, tapes instrumented.

    python -m gradtutor.explain.child FD [--quiet-tensorflow] SCRIPT [ARGS…]
    python -m gradtutor.explain.child FD [--quiet-tensorflow] -m MODULE [ARGS…]

The instrumentation is installed the moment the script's `import tensorflow` finishes
(so a script that sets TF_USE_LEGACY_KERAS before importing TensorFlow still gets Keras 2).
The script's stdout and stderr are its own; the findings go to file descriptor FD as one
JSON object {"findings", "script_exit", "gradient_calls", "unobserved", "exact"} (gradtutor.payloads.ExplainResult):
the cause rules' findings and what they left unexplained (gradtutor.evidence.report).
"""
from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import json
import os
import runpy
import sys
import traceback

from gradtutor.payloads import ExplainResult


class _AfterTensorflow(importlib.abc.MetaPathFinder):
    """Start recording right after the script imports TensorFlow."""

    def __init__(self, start, quiet=False):
        self.start, self.quiet = start, quiet

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tensorflow":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_start(module):
            with _quiet_import(self.quiet):
                exec_module(module)
            self.start()

        spec.loader.exec_module = exec_and_start
        return spec


@contextlib.contextmanager
def _quiet_import(quiet: bool):
    """TensorFlow's C++ start-up lines (absl's, written before any log level applies) go to /dev/null, unless
    the user asked for TensorFlow's logs by setting TF_CPP_MIN_LOG_LEVEL themselves (then `quiet` is False)."""
    if not quiet:
        yield
        return
    try:
        sys.stderr.flush()
    except (AttributeError, ValueError, OSError):
        pass
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def run_script(script: str, args: list[str], module: bool = False, quiet: bool = False) -> tuple[ExplainResult, int]:
    """Run the script (or the module, as `python -m` does); (payload, exit code) with the findings of every tape
    it used, also when it raised or was interrupted (Ctrl-C: exit code 130, as a shell reports it)."""
    state = {}

    def start():
        from gradtutor import evidence

        state["context"] = evidence.recording()
        state["record"] = state["context"].__enter__()

    if "tensorflow" in sys.modules:
        start()
    else:
        sys.meta_path.insert(0, _AfterTensorflow(start, quiet))
    code = 0
    try:
        if module:
            sys.argv = [script, *args]  # run_module puts the module's file in argv[0]
            sys.path[0] = os.getcwd()
            runpy.run_module(script, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [script, *args]
            sys.path[0] = os.path.dirname(os.path.abspath(script))
            runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if stop.code is not None and not isinstance(stop.code, int):
            print(stop.code, file=sys.stderr)
    except BaseException as error:  # noqa: BLE001 - the script's own failure, shown as Python would
        if "record" in state and isinstance(error, Exception):  # a refusal of TensorFlow's that names a cause
            from gradtutor.evidence.reading import raised

            raised.note(state["record"], error)
        _print_user_traceback(error)
        code = 130 if isinstance(error, KeyboardInterrupt) else 1
    findings, calls, unobserved, exact = [], 0, [], []
    if "record" in state:
        from gradtutor import evidence

        state["context"].__exit__(None, None, None)
        (findings, unobserved), calls = evidence.report(state["record"]), state["record"].gradient_calls
        exact = evidence.exact_zeros(state["record"])
    return {"findings": findings, "script_exit": code, "gradient_calls": calls, "unobserved": unobserved,
            "exact": exact}, code


def _print_user_traceback(error: BaseException) -> None:
    """The script's traceback as Python would print it without explain: runpy's frames and gradtutor's own (the
    wrappers a gradient call or an optimizer passes through while recording) are left out, chained errors too."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != sys.argv[0] and (
            "runpy" in tb.tb_frame.f_code.co_filename or "gradtutor" in tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    shown = traceback.TracebackException(type(error), error, tb)
    ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # the gradtutor package
    seen = set()
    pending = [shown]
    while pending:
        one = pending.pop()
        if id(one) in seen:
            continue
        seen.add(id(one))
        one.stack = traceback.StackSummary.from_list([frame for frame in one.stack
                                                      if not os.path.abspath(frame.filename).startswith(ours)])
        pending += [chained for chained in (one.__cause__, one.__context__) if chained is not None]
    sys.stderr.write("".join(shown.format()))


def main() -> None:
    fd, rest = int(sys.argv[1]), sys.argv[2:]
    quiet = rest[0] == "--quiet-tensorflow"
    rest = rest[1:] if quiet else rest
    module = rest[0] == "-m"
    script, args = (rest[1], rest[2:]) if module else (rest[0], rest[1:])
    sys.dont_write_bytecode = True
    payload, code = run_script(script, args, module, quiet)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    with os.fdopen(fd, "w") as out:
        json.dump(payload, out)
    sys.exit(code)


if __name__ == "__main__":
    main()
