"""The worker process: imports TensorFlow once, then forks one child per job.

Started by gradtutor.runner as `python -m gradtutor.worker`. It reads one JSON
job per line on stdin, forks, and reports `{"id", "pid"}` then `{"id", "exit"}`
on stdout. The worker itself never runs a TensorFlow op, so forking it is safe
(TF's thread pools start at the first op) and each job starts in ~0.1 s instead
of paying the ~3 s import again.

A job is either
* `reference`: build the seeded inputs and compute the reference answers. No
  learner code is loaded in that process.
* `learner`: build the same inputs afresh, load the learner's cells and call
  the exercise function. Guards go up first (see `_lock_down`): a memory cap,
  no subprocesses, no signals to other processes, no reading gradtutor's
  reference code, no writing or deleting outside a throwaway folder.

Either writes `result.json` and `arrays.npz` (plain arrays, never pickle) into
the job's folder; the parent checks the per-job nonce and does the comparing.
"""
from __future__ import annotations

import ast
import json
import linecache
import os
import resource
import sys
import traceback

import gradtutor.quiet  # noqa: F401  (must precede the TensorFlow import)
from gradtutor import sandbox as sandbox_module
from gradtutor.sandbox import HIDDEN_FROM_LEARNERS, REFERENCE_DIR

MAX_ITEMS = 16  # longest tuple/list of results we describe


class LearnerExit(Exception):
    """The learner's code tried to end the process (sys.exit, KeyboardInterrupt)."""


def main() -> None:
    sandbox_module.die_with_parent()
    _silence_stderr()
    import tensorflow as tf  # noqa: F401  (the whole point: import once, before forking)
    import keras  # noqa: F401
    import numpy  # noqa: F401

    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # nothing else may write to the protocol pipe
    protocol.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            protocol.close()
            _child(job)  # never returns
        protocol.write(json.dumps({"id": job["id"], "pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            outcome = {"signal": os.WTERMSIG(status)}
        else:
            outcome = {"code": os.WEXITSTATUS(status)}
        protocol.write(json.dumps({"id": job["id"], "exit": outcome}) + "\n")


def _silence_stderr() -> None:
    """TF's C++ start-up lines go to fd 2; send them to a log instead of the learner."""
    log = os.environ.get("GRADTUTOR_WORKER_LOG", os.devnull)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 2)


def _child(job: dict) -> None:
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
        sandbox_module.die_with_parent()
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the job stream is the worker's, not the child's
        run = _run_reference if job["kind"] == "reference" else _run_learner
        for index, (result, arrays) in run(job):
            _write(*slots[index], job["nonce"], result, arrays)
    except BaseException:  # noqa: BLE001 - report anything; the parent decides
        code = 3
        try:
            error_file.write(traceback.format_exc())
            error_file.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


def _write(result_file, arrays_file, nonce: str, result: dict, arrays: dict) -> None:
    import numpy as np

    result["nonce"] = nonce
    np.savez(arrays_file, **arrays)
    arrays_file.flush()
    json.dump(result, result_file)
    result_file.flush()


# --------------------------------------------------------------------------- reference


def _run_reference(job: dict):
    from gradtutor.references import exercises_of

    table = exercises_of(job["lesson"])
    for index, exercise_id in enumerate(job["exercises"]):
        exercise = table[exercise_id]
        arrays: dict = {}
        results: dict = {}
        for seed in job["seeds"]:
            value = exercise.reference(*exercise.build(seed).values())
            results[str(seed)] = _describe(value, f"{exercise_id}/{seed}", arrays)
        results["tolerance"] = {"rtol": exercise.rtol, "atol": exercise.atol}
        yield index, ({"status": "ok", "results": results}, arrays)


# --------------------------------------------------------------------------- learner


def _run_learner(job: dict):
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
    sandbox = os.path.join(job["out"], "sandbox")
    os.makedirs(sandbox, exist_ok=True)
    _lock_down(sandbox, capture, job.get("memory_mb"))

    namespace: dict = {"__name__": "__learner__", "__builtins__": __builtins__}
    labels = frozenset(cell["label"] for cell in job["cells"])
    for cell in job["cells"]:  # so tracebacks can quote the learner's own line
        linecache.cache[cell["label"]] = (len(cell["source"]), None, cell["source"].splitlines(True), cell["label"])
    load_errors = [error for cell in job["cells"] if (error := _load_cell(cell, namespace, labels))]
    for index, exercise in enumerate(job["exercises"]):
        broken = next((e for e in load_errors if exercise["function"] in e.get("defines", ())), None)
        if broken:
            yield index, ({"status": "error", "error": broken}, {})
            continue
        function = namespace.get(exercise["function"])
        if not callable(function):
            yield index, ({"status": "missing"}, {})
            continue
        chosen = {seed: inputs[exercise["id"]][seed] for seed in job["seeds"]}
        yield index, _call(function, exercise["id"], chosen, labels)


def _warm_up() -> None:
    """The first op and the first gradient cost ~0.2 s in a fresh process: pay them before the save."""
    import tensorflow as tf

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x)
    tape.gradient(y, x)


def _call(function, exercise_id: str, inputs: dict, labels: frozenset) -> tuple[dict, dict]:
    arrays: dict = {}
    results: dict = {}
    import keras

    for seed, args in inputs.items():
        keras.utils.set_random_seed(seed)  # python, numpy and TF: the same verdict every time
        try:
            value = function(*args)
        except NotImplementedError:
            return {"status": "not_attempted"}, {}
        except BaseException as exc:  # noqa: BLE001 - the learner's error is a verdict, not our crash
            return {"status": "error", "error": _describe_error(exc, seed, labels)}, {}
        results[str(seed)] = _describe(value, f"{exercise_id}/{seed}", arrays)
    return {"status": "ok", "results": results}, arrays


def _build_inputs(lesson_id: str, exercise_ids: list, seeds: list) -> dict:
    """Fresh inputs per exercise and seed. A function of its own, so no frame the learner's
    code can walk to still holds the reference module once it returns."""
    from gradtutor.references import exercises_of

    table = exercises_of(lesson_id)
    return {eid: {seed: list(table[eid].build(seed).values()) for seed in seeds} for eid in exercise_ids}


def _forget_references() -> None:
    """Drop the reference modules, and prove they are gone, before learner code loads."""
    import gc
    import weakref

    import gradtutor

    modules = [sys.modules.pop(name) for name in list(sys.modules) if name.startswith("gradtutor.references")]
    gradtutor.__dict__.pop("references", None)
    for module in modules:
        for name in [n for n in vars(module) if n.startswith("lesson")]:
            delattr(module, name)  # the package's own attribute for each lesson module
    watchers = [weakref.ref(module) for module in modules]
    del modules, module
    gc.collect()
    if any(watcher() is not None for watcher in watchers):
        raise RuntimeError("gradtutor's reference modules are still reachable; refusing to run learner code")


def _lock_down(sandbox: str, capture: str, memory_mb: int | None) -> None:
    """Guards that hold for everything the learner's code does from here on."""
    import tempfile

    fd = os.open(capture, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    os.chdir(sandbox)
    tempfile.tempdir = sandbox  # autograph writes its generated code to a temp file
    os.environ["TMPDIR"] = sandbox
    if memory_mb:
        limit = memory_mb * 1024 * 1024 + _virtual_size()
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    writable = (os.path.realpath(sandbox) + os.sep, "/dev/null")
    me = os.getpid()

    def _inside(path) -> bool:
        try:
            real = os.path.realpath(os.fsdecode(path)) if not isinstance(path, int) else None
        except (TypeError, ValueError):
            return False
        return real is not None and (real.startswith(writable[0]) or real == writable[1])

    def guard(event: str, args: tuple) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance(path, (str, bytes)):
                real = os.path.realpath(os.fsdecode(path))
                if real.startswith(REFERENCE_DIR + os.sep) or real == REFERENCE_DIR:
                    raise PermissionError("exercise code may not read gradtutor's reference implementation")
                writing = (mode and any(c in str(mode) for c in "wax+")) or (
                    flags is not None and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC)
                )
                if writing and not _inside(path):
                    raise PermissionError(f"exercise code may not write files outside its scratch folder: {path}")
        elif event == "import" and args and str(args[0]).startswith(("gradtutor.references", "gradtutor.worker")):
            raise PermissionError("exercise code may not import gradtutor's reference implementation")
        elif event in ("os.remove", "os.rmdir", "os.rename", "os.truncate", "shutil.rmtree", "os.chmod", "os.chown"):
            for path in args[:2]:
                if isinstance(path, (str, bytes, os.PathLike)) and not _inside(path):
                    raise PermissionError(f"exercise code may not change files outside its scratch folder: {path}")
        elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn"):
            raise PermissionError("exercise code may not start other processes")
        elif event in ("os.kill", "os.killpg") and args and args[0] not in (me, 0):
            raise PermissionError("exercise code may not send signals to other processes")
        elif event in ("os.link", "os.symlink", "os.mkdir", "os.mkfifo", "os.mknod", "sqlite3.connect"):
            for path in args[:2]:
                if isinstance(path, (str, bytes, os.PathLike)) and not _inside(path):
                    raise PermissionError(f"exercise code may not create files outside its scratch folder: {path}")
        elif event in ("ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function", "ctypes.cdata"):
            raise PermissionError("exercise code may not call C functions through ctypes")

    # The kernel's layer first (it uses ctypes, which the hook below forbids): it also covers
    # TensorFlow's C++ file functions, which no audit hook sees.
    sandbox_module.restrict(sandbox, HIDDEN_FROM_LEARNERS)
    sys.addaudithook(guard)  # audit hooks cannot be removed, even by the code they guard


def _virtual_size() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * resource.getpagesize()


_KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _load_cell(cell: dict, namespace: dict, labels: frozenset) -> dict | None:
    """Run a cell's definitions (not its top-level work); return an error description or None."""
    try:
        tree = ast.parse(cell["source"], filename=cell["label"])
    except SyntaxError:
        return None  # the parent reports syntax errors where they matter
    kept = [node for node in tree.body if isinstance(node, _KEPT) or _is_literal_assignment(node)]
    defines = [n.name for n in kept if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for node in kept:
        try:
            code = compile(ast.Module(body=[node], type_ignores=[]), cell["label"], "exec")
            exec(code, namespace)  # noqa: S102 - this is the sandboxed child; running learner code is its job
        except BaseException as exc:  # noqa: BLE001
            error = _describe_error(exc, None, labels)
            error["defines"] = defines
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue  # an import that fails here fails in the learner's notebook too; go on
            return error
    return None


def _is_literal_assignment(node: ast.AST) -> bool:
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return False
    try:
        ast.literal_eval(node.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _describe_error(exc: BaseException, seed, labels: frozenset = frozenset()) -> dict:
    """The learner's own last frame: which cell and line raised what."""
    kind = exc.__class__.__name__
    if isinstance(exc, SystemExit):
        kind = "SystemExit"
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__
        message = ""
    where = None
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename in labels:
            where = f"{frame.filename}, line {frame.lineno}"
            line = frame.line
    return {"type": kind, "message": message[:500], "where": where, "line": line, "seed": seed}


# --------------------------------------------------------------------------- values


def _describe(value, key: str, arrays: dict, depth: int = 0) -> dict:
    """A plain description of a returned value; its numbers go into `arrays` under `key`.

    Types are matched exactly, never through the value's own methods, so an
    object with a lying __eq__ or __array__ is just "other".
    """
    import numpy as np
    import tensorflow as tf

    kind = type(value)
    if value is None:
        return {"type": "None"}
    if kind in (tuple, list):
        if depth > 0 or len(value) > MAX_ITEMS:
            return {"type": kind.__name__, "length": len(value), "items": None}
        items = [_describe(item, f"{key}/{i}", arrays, depth + 1) for i, item in enumerate(value)]
        return {"type": kind.__name__, "length": len(value), "items": items}
    if kind.__name__ == "EagerTensor" and kind.__module__.startswith("tensorflow."):
        return _array(value.numpy(), "Tensor", key, arrays, value.dtype.name)
    if isinstance(value, tf.Variable) and type(value).__module__.startswith(("tensorflow.", "keras.")):
        return _array(value.numpy(), "Variable", key, arrays, value.dtype.name)
    if kind is tf.IndexedSlices:
        return _array(tf.convert_to_tensor(value).numpy(), "IndexedSlices", key, arrays, value.dtype.name)
    if kind.__module__ == "keras.src.backend.common.variables" or kind.__name__ == "Variable" and "keras" in kind.__module__:
        return {"type": "keras.Variable"}
    if kind is np.ndarray:
        return _array(value, "ndarray", key, arrays, value.dtype.name)
    if isinstance(value, np.generic) and type(value).__module__ == "numpy":
        return _array(np.asarray(value), "numpy scalar", key, arrays, value.dtype.name)
    if kind in (float, int, bool):
        return _array(np.asarray(value), kind.__name__, key, arrays, None)
    return {"type": "other", "name": f"{kind.__module__}.{kind.__qualname__}"[:120]}


def _array(array, kind: str, key: str, arrays: dict, dtype: str | None) -> dict:
    import numpy as np

    described = {"type": kind, "dtype": dtype or array.dtype.name, "shape": list(array.shape)}
    if array.dtype.kind in "biufc" and array.size <= 10_000_000:
        arrays[key] = np.array(array, copy=True)
        described["key"] = key
    return described


if __name__ == "__main__":
    main()
