"""Run a patched copy of a script under explain's instrumentation and note what its gradient calls returned.

    python -m gradtutor.explain.fix.rerun FD COPY HOME LINES_JSON [ARGS…]
    (LINES_JSON: the list of lines, or {"lines": [...], "eager": true} to run its tf.functions eagerly)

COPY is the patched script in a scratch folder; HOME, the original's folder, stays on sys.path
so the script's own modules import as before. For every gradient call made from one of the
LINES of COPY, each source's gradient is summarised as ok, none, nonfinite or zero — or `traced`
when it was asked while a tf.function was traced: then it is only a symbol, and what the
in-graph checks of gradtutor/evidence/recording/compiled/traced.py saw of its values in the compiled steps goes
to "compiled": {line: {"steps", "codes"}}. The result goes to file descriptor FD as
{"findings", "script_exit", "gradients": {line: [[…], …]}, "central", "compiled"}.
`run_patched` does the same in this process (the corpus test runs many copies in one).
"""
from __future__ import annotations

import contextlib
import json
import os
import sys

from gradtutor.payloads import ExplainResult

CALLS_KEPT = 8  # per line: a training loop asks the same line every step
RERUNNING = False  # True while a patched copy runs: a `with gradtutor.explain(fix=True)` in it must not re-run again


def summary(value) -> str:
    """none, nonfinite, zero or ok; `traced` for a symbolic gradient (a traced tf.function): known only not to be None."""
    if value is None:
        return "none"
    values = getattr(value, "values", value)  # IndexedSlices: the gradient's rows
    if not hasattr(values, "_numpy"):
        return "traced"
    import numpy as np

    try:
        array = np.asarray(values._numpy())
    except Exception:  # noqa: BLE001 - a resource or variant: nothing to say of its values
        return "ok"
    if array.dtype.kind not in "fc":
        return "ok"
    if not np.isfinite(array).all():
        return "nonfinite"
    return "ok" if array.size == 0 or np.any(array != 0) else "zero"


@contextlib.contextmanager
def capturing(copy: str, lines: set[int]):
    """While a recording is installed, the gradients asked from those lines of COPY are summarised into `seen`."""
    from gradtutor.evidence.recording import instrument

    seen: dict[int, list[list[str]]] = {}
    errors: dict[int, float | None] = {}  # the first call's central-difference error, per line
    traces: dict[int, list] = {}  # per line: (the traced function's state, its calls when this trace was made)

    def observe(record, target, sources, result, frame=None):
        import tensorflow as tf

        # a tf.Graph's gradients have values when a Session runs them: `frame` is then the line that asked for them
        asked = frame is not None and os.path.abspath(frame[0]) == os.path.abspath(copy)
        line = frame[1] if asked else _line_in(copy)
        if line in lines and len(seen.setdefault(line, [])) < CALLS_KEPT:
            _note(seen[line], errors, line, record, target, sources, result)
        if line in lines and not tf.executing_eagerly():
            function = getattr(record.graph.traced, "current", None)  # traced.py's FunctionState
            if function is not None:
                traces.setdefault(line, []).append((function, getattr(function, "calls", 0)))

    instrument.OBSERVERS.append(observe)  # the recording calls it after each gradient (gradtutor.evidence)
    compiled: dict[int, dict] = {}
    try:
        yield seen, errors, compiled
    finally:
        compiled.update({line: _checked(copy, line, made) for line, made in traces.items()})
        instrument.OBSERVERS.remove(observe)


def _note(calls: list, errors: dict, line: int, record, target, sources, result) -> None:
    """What one gradient call returned; never an error in the script's own call."""
    import tensorflow as tf

    try:
        calls.append([summary(g) for g in tf.nest.flatten(result, expand_composites=False)])
    except Exception:  # noqa: BLE001 - an unusual result: this call says nothing
        return
    if line not in errors and "traced" not in calls[-1]:  # symbols have no values to compare
        errors[line] = _central(record, target, sources, result)


def _checked(copy: str, line: int, made: list) -> dict:
    """What the in-graph checks saw of the gradients a traced call at LINE returned: the compiled steps its
    checks ran in (its function's calls since it was traced) and, per trace, the worst code (monitors.CODES) of
    each gradient."""
    steps, codes = 0, []
    for function, calls_then in made:
        monitors = [m for m in getattr(function, "monitors", ()) if m.frame is not None and tuple(m.frame) == (copy, line)]
        if monitors:
            steps += function.calls - calls_then + 1
            codes += [list(m.known) for m in monitors]
    return {"steps": steps, "codes": codes}


def _line_in(copy: str) -> int | None:
    """The line of COPY the gradient is asked from; a line autograph converted counts as the line it came from."""
    from gradtutor.evidence.recording import frames

    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name == copy:
            return frame.f_lineno
        if frames.GENERATED in name:
            origin = frames.converted_from(name, frame.f_lineno)
            if origin is not None and origin[0] == copy:
                return origin[1]
        frame = frame.f_back
    return None


def run_patched(copy: str, home: str, lines: list[int], args: list[str], eager: bool = False) -> ExplainResult:
    """eager: its tf.functions run eagerly (tf.config.run_functions_eagerly), so that a gradient the in-graph checks
    saw all zero has values to measure a central difference on (fix/verify.py)."""
    import tensorflow as tf

    from gradtutor.explain.child import run_script

    path, was_eager = list(sys.path), tf.config.functions_run_eagerly()
    sys.path.insert(1, home)
    tf.config.run_functions_eagerly(eager or was_eager)
    try:
        with capturing(copy, set(lines)) as (seen, errors, compiled):
            payload, code = run_script(copy, args)
    finally:
        sys.path[:] = path
        tf.config.run_functions_eagerly(was_eager)
    return {"findings": payload["findings"], "script_exit": code, "gradients": {str(k): v for k, v in seen.items()},
            "unobserved": payload.get("unobserved") or [],
            "central": {str(k): v for k, v in errors.items()}, "compiled": {str(k): v for k, v in compiled.items()}}


def _central(record, target, sources, result) -> float | None:
    from gradtutor.explain.fix import central

    try:
        return central.error(record.graph, target, sources, result, custom=False)
    except Exception:  # noqa: BLE001 - the cross-check is extra evidence; it never breaks the script's run
        return None


def main() -> None:
    global RERUNNING
    fd, copy, home, spec, args = int(sys.argv[1]), sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), sys.argv[5:]
    lines, eager = (spec, False) if isinstance(spec, list) else (spec["lines"], bool(spec.get("eager")))
    sys.dont_write_bytecode = True
    RERUNNING = True
    payload = run_patched(copy, home, lines, args, eager)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    with os.fdopen(fd, "w") as out:
        json.dump(payload, out)
    sys.exit(payload["script_exit"])


if __name__ == "__main__":
    main()
