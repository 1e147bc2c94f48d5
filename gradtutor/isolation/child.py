"""What one forked child does with its job, then exits (see gradtutor.isolation.server).

A job is either
* `reference`: build the seeded inputs and compute the reference answers. No
  learner code is loaded in that process.
* `learner`: build the same inputs afresh, drop the reference modules, put the
  rules of gradtutor.isolation.policy in force, load the learner's cells
  (definitions only: gradtutor.course.extract) and call each exercise's function.

Either writes a ChildResult per exercise (result-<i>.json, with the job's nonce)
and its arrays (arrays-<i>.npz: plain arrays, never pickle) into the job's
folder; the parent checks the nonce and does the comparing.
"""
from __future__ import annotations

import ast
import contextlib
import json
import linecache
import os
import sys
import tempfile
import traceback

from gradtutor.course import extract
from gradtutor.evidence.recording import custom_gradients
from gradtutor.evidence.reading import run_facts
from gradtutor.isolation import input_copies, keras_calls, landlock, policy
from gradtutor.isolation.describe import describe_error, describe_value, describe_variants, input_shapes
from gradtutor.protocol import CellSource, ChildResult, ErrorDescription, Job
from gradtutor.course.seeds import is_hidden
from gradtutor.messages import say

ERROR_EXIT = 3  # the child itself failed (its traceback is in worker-error.txt)


def run(job: Job, server: int) -> None:
    """Run the job in this freshly forked process and exit; never returns. `server`: the forking server's pid."""
    code = 0
    # Opened before any guard goes up: the learner's code is not allowed to
    # write outside its scratch folder, but the checker must still report.
    # One result slot per exercise, filled in order: an empty slot was not reached.
    out = job["out"]
    slots = [(open(os.path.join(out, f"result-{i}.json"), "w"), open(os.path.join(out, f"arrays-{i}.npz"), "wb"))
             for i in range(len(job["exercises"]))]
    error_file = open(os.path.join(out, "worker-error.txt"), "w")
    try:
        os.setsid()  # its own process group: the parent can kill everything it starts
        landlock.die_with_parent(parent=server)  # a server killed since the fork leaves no child behind
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the job stream is the server's, not the child's
        steps = _run_reference if job["kind"] == "reference" else _run_learner
        for index, (result, arrays) in steps(job):
            _write(*slots[index], job["nonce"], result, arrays)
    except BaseException:  # noqa: BLE001 - report anything; the parent decides
        code = ERROR_EXIT
        try:
            error_file.write(traceback.format_exc())
            error_file.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


def _write(result_file, arrays_file, nonce: str, result: ChildResult, arrays: dict) -> None:
    import numpy as np

    result["nonce"] = nonce
    np.savez(arrays_file, **arrays)
    arrays_file.flush()
    json.dump(result, result_file)
    result_file.flush()


# --------------------------------------------------------------------------- reference


def _run_reference(job: Job):
    from gradtutor.course.references import exercises_of

    table = exercises_of(job["lesson"])
    for index, exercise_id in enumerate(job["exercises"]):
        exercise = table[exercise_id]
        arrays: dict = {}
        results, shapes, variants = {}, {}, {}  # per seed: the inputs' shapes (counts), the variants' values
        for seed in job["seeds"]:
            value = exercise.reference(*(inputs := exercise.build(seed)).values())
            shapes[str(seed)] = input_shapes(inputs)
            results[str(seed)] = describe_value(value, f"{exercise_id}/{seed}", arrays)
            variants[str(seed)] = describe_variants(exercise, f"{exercise_id}/{seed}", seed, arrays)
        results.update(tolerance={"rtol": exercise.rtol, "atol": exercise.atol}, shapes=shapes, variants=variants)
        yield index, ({"status": "ok", "results": results}, arrays)


# --------------------------------------------------------------------------- learner


def _run_learner(job: Job):
    """Load the learner's cells once, then run each exercise's function in turn.

    A prepared job (`cells_fifo`) builds its inputs and warms TensorFlow up first,
    then waits for the cells and the exercises to run: `gradtutor watch` and the
    notebook keep one ready, so a save costs only the learner's own code.
    """
    inputs = _build_inputs(job["lesson"], [e["id"] for e in job["exercises"]], job["seeds"])
    _forget_references()
    if job.get("cells_fifo"):
        _warm_up()
        with open(job["cells_fifo"]) as fifo:  # blocks until the parent sends the learner's code
            job.update(json.load(fifo))

    capture = os.path.join(job["out"], "output.txt")
    scratch = os.path.join(job["out"], "sandbox")
    os.makedirs(scratch, exist_ok=True)
    _lock_down(scratch, capture, job.get("memory_mb"), job.get("hide") or [])

    namespace: dict = {"__name__": "__learner__", "__builtins__": __builtins__}
    labels = frozenset(cell["label"] for cell in job["cells"])
    for cell in job["cells"]:  # so tracebacks can quote the learner's own line
        linecache.cache[cell["label"]] = (len(cell["source"]), None, cell["source"].splitlines(True), cell["label"])
    trees = [_parse(cell) for cell in job["cells"]]
    functions = extract.notebook_functions([tree for tree in trees if tree is not None])
    load_errors = [error for cell, tree in zip(job["cells"], trees) if tree is not None
                   for error in _load_cell(cell, tree, namespace, labels, functions)]
    _quiet_autograph()
    for index, exercise in enumerate(job["exercises"]):
        function = namespace.get(exercise["function"])
        broken = next((e for e in load_errors if exercise["function"] in e.get("defines", ())), None)
        if broken and not callable(function):
            yield index, ({"status": "error", "error": broken}, {})
            continue
        if not callable(function):
            yield index, ({"status": "missing"}, {})
            continue
        later = any(e["id"] == exercise["id"] for e in job["exercises"][index + 1:])
        fresh = _build_inputs(job["lesson"], [exercise["id"]], job["seeds"], keep=inputs, last=not later)[exercise["id"]]
        yield index, _call(function, exercise["id"], fresh, labels, load_errors)


def _warm_up() -> None:
    """Pay before the save what a fresh process pays once: the first op and gradient, each float width's first MatMul."""
    import tensorflow as tf

    for dtype in (tf.float32, tf.float64):
        with run_facts.recording([x := tf.ones((2, 3), dtype)], {}, frozenset()), custom_gradients.recording({}):
            with tf.GradientTape() as tape:  # under the recorder: its first use is paid here too
                tape.watch(x)
                y = tf.reduce_sum(x * x) + tf.reduce_sum(tf.matmul(x, tf.ones((3, 2), dtype)))
            tape.gradient(y, x)


def _call(function, exercise_id: str, inputs: dict, labels: frozenset, load_errors=()) -> tuple[ChildResult, dict]:
    """Call the learner's function once per seed on fresh inputs, recording facts and checking the inputs after."""
    arrays, results, seen = {}, {}, {}
    import keras

    for seed, args in inputs.items():
        keras.utils.set_random_seed(seed)  # python, numpy and TF: the same verdict every time
        before = input_copies.snapshot(args)
        recorded: dict = {}
        try:
            with _output_for(seed), run_facts.recording(args, recorded, labels), custom_gradients.recording(recorded), \
                    keras_calls.recording(args, recorded, labels):
                value = function(*args)
        except NotImplementedError:
            return {"status": "not_attempted"}, {}
        except BaseException as exc:  # noqa: BLE001 - the learner's error is a verdict, not our crash
            error = _unloaded(exc, load_errors) or describe_error(exc, seed, labels)
            return {"status": "error", "error": error, "facts": recorded}, {}
        recorded["inputs_modified"] = input_copies.changed(args, before)
        seen = seen or recorded
        if recorded["inputs_modified"]:
            seen = recorded
        results[str(seed)] = describe_value(value, f"{exercise_id}/{seed}", arrays)
    return {"status": "ok", "results": results, "facts": seen}, arrays


def _unloaded(exc: BaseException, load_errors) -> ErrorDescription | None:
    """A NameError for a name whose top-level statement failed to load: report that statement instead."""
    name = getattr(exc, "name", None)
    if not isinstance(exc, NameError) or not name:
        return None
    found = next((e for e in load_errors if name in e.get("defines", ())), None)
    return dict(found, unloaded=name) if found else None


@contextlib.contextmanager
def _output_for(seed: int):
    """The learner's prints reach the capture file for visible inputs only: printing a hidden input leaks it."""
    if not is_hidden(seed):
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (null, *saved):
            os.close(fd)


def _quiet_autograph() -> None:
    """AutoGraph's warnings name the checker's scratch folder: they are not the learner's output."""
    import logging

    import tensorflow as tf

    tf.autograph.set_verbosity(0)
    logging.getLogger("tensorflow").setLevel(logging.ERROR)


def _build_inputs(lesson_id: str, exercise_ids: list, seeds: list, keep: dict | None = None,
                  last: bool = False) -> dict:
    """Fresh inputs per exercise and seed. A function of its own, so no frame the learner's
    code can walk to still holds the reference module once it returns. With `keep` (inputs
    built before the references were dropped): copies of those, or with `last` (no later call
    of these exercises in this child) the inputs themselves, built as the reference job built
    its own — a copy of a Keras model costs about as much CPU as building it, and a child
    usually calls each exercise once."""
    if keep is not None:
        hand = (lambda eid, seed: keep[eid].pop(seed)) if last else (lambda eid, seed: input_copies.fresh(keep[eid][seed]))
        return {eid: {seed: hand(eid, seed) for seed in seeds} for eid in exercise_ids}
    from gradtutor.course.references import exercises_of

    table = exercises_of(lesson_id)
    return {eid: {seed: list(table[eid].build(seed).values()) for seed in seeds} for eid in exercise_ids}


def _forget_references() -> None:
    """Drop the reference modules, and prove they are gone, before learner code loads."""
    import gc
    import weakref

    modules = [sys.modules.pop(name) for name in list(sys.modules) if name.startswith("gradtutor.course.references")]
    getattr(sys.modules.get("gradtutor.course"), "__dict__", {}).pop("references", None)  # its package's name for them
    for module in modules:
        for name in [n for n in vars(module) if n.startswith("lesson")]:
            delattr(module, name)  # the package's own attribute for each lesson module
    watchers = [weakref.ref(module) for module in modules]
    del modules, module
    gc.collect()
    if any(watcher() is not None for watcher in watchers):
        raise RuntimeError("gradtutor's reference modules are still reachable; refusing to run learner code")


def _lock_down(scratch: str, capture: str, memory_mb: int | None, hide: list[str]) -> None:
    """Output into the capture file, the scratch folder as the working and temporary folder, then the policy."""
    fd = os.open(capture, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    os.chdir(scratch)
    tempfile.tempdir = scratch  # autograph writes its generated code to a temp file
    os.environ["TMPDIR"] = scratch
    policy.enforce(scratch, memory_mb, hide)


def _parse(cell: CellSource) -> ast.Module | None:
    try:
        return ast.parse(cell["source"], filename=cell["label"])
    except SyntaxError:
        return None  # the parent reports syntax errors where they matter


def _load_cell(cell: CellSource, tree: ast.Module, namespace: dict, labels: frozenset,
               functions: frozenset) -> list[ErrorDescription]:
    """Run what the learner's kernel ran of a cell (extract.loaded_statements); the errors, each with what it defines.

    A failing statement does not stop the cell: the kernel ran the `with` blocks and work
    this skips, so a later statement may fail here only; a name it would bind is reported
    when an exercise needs it.
    """
    errors = []
    for node in extract.loaded_statements(tree, functions):
        try:
            code = compile(ast.Module(body=[node], type_ignores=[]), cell["label"], "exec")
            exec(code, namespace)  # noqa: S102 - this is the sandboxed child; running learner code is its job
        except BaseException as exc:  # noqa: BLE001
            error = describe_error(exc, None, labels)
            error["defines"] = _bound_names(node)
            error["where"] = error.get("where") or say("files.line", where=cell["label"], line=node.lineno)
            errors.append(error)
    return errors


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return [n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)]
