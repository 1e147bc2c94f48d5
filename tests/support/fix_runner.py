"""Explain each corpus script, patch it, and verify the patch — all in this one process (TensorFlow imported once).

    python tests/support/fix_runner.py OUT.jsonl SCRIPT.py [SCRIPT.py ...]

Per script one JSON line: what explain's child reported (its "findings", "exact", …) with "script",
"patched": [{cause, line, verified, why, fd_error}], "manual": [{cause, reason}], "diff", "unchanged"; the scripts' own output goes to /dev/null. The
patched copies are written to a scratch folder; "unchanged" says the script's bytes and mtime
are what they were.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile

import gradtutor.quiet  # noqa: F401 - TensorFlow, without its start-up noise
from gradtutor.explain.child import run_script
from gradtutor.explain.fix import plan as plans
from gradtutor.explain.fix import verify
from gradtutor.explain.fix.rerun import run_patched

sys.dont_write_bytecode = True


def _fresh_autograph() -> None:
    """Forget the functions autograph converted for the scripts before, as a process of its own would.

    Its cache is keyed by code object, and code objects compare equal without their file: a
    `train_step` written the same way in two scripts would reuse the first one's conversion,
    whose source map names the first file."""
    from tensorflow.python.autograph.impl import api
    from tensorflow.python.autograph.pyct import cache

    api._TRANSPILER._cache = cache.CodeObjectCache()


def one(script: str, scratch: str, sink) -> dict:
    _fresh_autograph()
    before = os.stat(script)
    with open(script, "rb") as handle:
        data = handle.read()
    path0 = sys.path[0]
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        payload, _ = run_script(script, [])
        sys.path[0] = path0
        plan = plans.make(script, payload["findings"])
        if plan.items:
            copy = os.path.join(scratch, os.path.basename(script))

            def run(text, lines, eager=False):
                with open(copy, "w", encoding="utf-8") as handle:
                    handle.write(text)
                _fresh_autograph()
                rerun = run_patched(copy, os.path.dirname(script), lines, [], eager)
                sys.path[0] = path0
                return rerun

            verify.rounds(plan, copy, run)
    after = os.stat(script)
    with open(script, "rb") as handle:
        unchanged = handle.read() == data and after.st_mtime_ns == before.st_mtime_ns
    return {**payload, "script": os.path.basename(script), "diff": plan.diff,
            "patched": [{"cause": i.cause, "line": i.line, "subject": i.subject, "verified": i.verified, "why": i.why,
                         "fd_error": i.fd_error, "call": i.call,
                         "compiled_steps": i.compiled_steps, "zero": i.zero} for i in plan.items],
            "manual": [{"cause": m.cause, "reason": m.reason} for m in plan.manual], "unchanged": unchanged}


def main() -> None:
    out, scripts = sys.argv[1], [os.path.abspath(s) for s in sys.argv[2:]]
    with open(out, "w") as results, open(os.devnull, "w") as sink, tempfile.TemporaryDirectory() as scratch:
        for script in scripts:
            results.write(json.dumps(one(script, scratch, sink)) + "\n")
            results.flush()


if __name__ == "__main__":
    main()
