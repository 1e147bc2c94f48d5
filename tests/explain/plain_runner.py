"""Run corpus scripts plainly — no gradtutor — and note what each of their gradient calls returned or raised.

    python tests/explain/plain_runner.py OUT.jsonl SCRIPT.py [SCRIPT.py ...]

The referee of the explain corpus's acceptance test (test_explain_corpus.py): one JSON line per script,
{"script", "gradients": {ok|none|zeros|nonfinite: count}, "raised": the exceptions a gradient call raised,
"script_error": the exception that ended the script, or null}. Only TensorFlow's own API is wrapped here
(GradientTape's gradient, jacobian and batch_jacobian, ForwardAccumulator's jvp, tf.gradients), and compiled
functions run eagerly so that their gradients have values to look at (tf.gradients runs only in a graph: its None
is seen, its values are not). Calls TensorFlow makes itself (pfor's,
forward mode's) are not the script's and are not counted; Keras's (fit's train_step) are.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import json
import os
import runpy
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.dont_write_bytecode = True  # before any corpus script is imported: nothing written beside them

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.eager import backprop, forwardprop  # noqa: E402

SEEN: dict = {"gradients": collections.Counter(), "raised": []}
AUTOGRAPH = "tensorflow.python.autograph"  # how a traced function calls what the user's code calls


def health(gradient) -> str:
    """ok, none, zeros (every element exactly 0) or nonfinite, of one gradient as TensorFlow returned it."""
    if gradient is None:
        return "none"
    values = getattr(gradient, "values", gradient)  # IndexedSlices: its rows
    try:
        array = np.asarray(values)
    except Exception:  # noqa: BLE001 - a value that cannot be read is not judged
        return "ok"
    if array.dtype.kind == "V":  # bfloat16
        array = array.astype(np.float32)
    if array.dtype.kind not in "fc" or not array.size:
        return "ok"
    if not np.isfinite(array).all():
        return "nonfinite"
    return "zeros" if not array.any() else "ok"


def _wrap(owner, name: str) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapped(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        mine = not caller.startswith("tensorflow") or caller.startswith(AUTOGRAPH)  # a traced step's call is the user's
        try:
            result = original(*args, **kwargs)
        except Exception as error:
            if mine:
                SEEN["raised"].append(type(error).__name__)
            raise
        if mine:
            SEEN["gradients"].update(health(g) for g in (tf.nest.flatten(result) if result is not None else [None]))
        return result

    setattr(owner, name, wrapped)


def run(script: str) -> dict:
    """The script run with its compiled functions run eagerly; if that raised, run again as it is (a function that
    calls tf.gradients runs only compiled): the second run's exception, or none, is the script's."""
    row = _run(script)
    if row["script_error"] is not None:
        tf.config.run_functions_eagerly(False)
        try:
            again = _run(script)
        finally:
            tf.config.run_functions_eagerly(True)
        if again["script_error"] is None:
            return again
    return row


def _run(script: str) -> dict:
    SEEN["gradients"], SEEN["raised"] = collections.Counter(), []
    error = None
    path0 = sys.path[0]
    sys.argv, sys.path[0] = [script], os.path.dirname(os.path.abspath(script))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        error = None if stop.code in (None, 0) else f"SystemExit: {stop.code}"
    except Exception as raised:  # noqa: BLE001 - the script's own failure is what this records
        error = type(raised).__name__
    finally:
        sys.path[0] = path0
    return {"script": os.path.basename(script), "gradients": dict(SEEN["gradients"]), "raised": SEEN["raised"],
            "script_error": error}


def main() -> None:
    out, scripts = sys.argv[1], sys.argv[2:]
    for owner, names in ((backprop.GradientTape, ("gradient", "jacobian", "batch_jacobian")),
                         (forwardprop.ForwardAccumulator, ("jvp",)), (tf, ("gradients",))):
        for name in names:
            _wrap(owner, name)
    tf.config.run_functions_eagerly(True)
    with open(out, "w") as results, open(os.devnull, "w") as sink:
        for script in scripts:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                row = run(script)
            results.write(json.dumps(row) + "\n")
            results.flush()


if __name__ == "__main__":
    main()
