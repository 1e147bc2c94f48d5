"""Run corpus scripts one after another in this one process (TensorFlow imported once), each explained.

    python tests/support/explain_runner.py OUT.jsonl SCRIPT.py [SCRIPT.py ...]

Writes one JSON line per script: {"script", "findings", "script_exit", "seconds"}. The scripts'
own output goes to /dev/null.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import time

import gradtutor.quiet  # noqa: F401 - TensorFlow, without its start-up noise
from gradtutor.explain.child import run_script

sys.dont_write_bytecode = True  # before any corpus script is imported: nothing written beside them


def main() -> None:
    out, scripts = sys.argv[1], sys.argv[2:]
    path0 = sys.path[0]
    with open(out, "w") as results, open(os.devnull, "w") as sink:
        for script in scripts:
            started = time.perf_counter()
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                payload, _ = run_script(script, [])
            sys.path[0] = path0
            payload.update(script=os.path.basename(script), seconds=round(time.perf_counter() - started, 2))
            results.write(json.dumps(payload) + "\n")
            results.flush()


if __name__ == "__main__":
    main()
