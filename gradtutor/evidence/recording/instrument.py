"""Install and remove the instrumentation: TensorFlow's op callback and thin wrappers on the tape.

Everything patched is put back by `uninstall`; outside a recording nothing of TensorFlow is changed.
`tf.function`s run compiled: a traced graph's ops reach the same op callback (compiled/traced.py).
"""
from __future__ import annotations

import functools
import sys

from gradtutor.evidence.recording import custom_gradients, forward, listening, rebinding, variable_reads
from gradtutor.evidence.recording import graph as graph_module
from gradtutor.evidence.recording.compiled import graph_functions
from gradtutor.evidence.recording.frames import raised_at, user_frame
from gradtutor.evidence.recording.listening import caller, tell
from gradtutor.evidence.recording.tapes import TapeInfo, tape_info


# f(record, target, sources, result) for every gradient a tape returns while recording: how a caller sees
# the gradients (explain's --fix re-run) without wrapping the tape a second time
OBSERVERS: list = []


def _observed(record, gradient):
    def observed(tape, target, sources, *args, **kwargs):
        result = gradient(tape, target, sources, *args, **kwargs)
        for observer in list(OBSERVERS):
            observer(record, target, sources, result)
        return result

    return functools.wraps(gradient)(observed)


def install(record) -> None:
    import tensorflow as tf
    from tensorflow.python.eager import backprop
    from tensorflow.python.eager import context as tf_context
    from tensorflow.python.framework import op_callbacks, ops

    from gradtutor.evidence.recording import optimizers
    from gradtutor.evidence.recording import sampling
    from gradtutor.evidence.recording.compiled import traced

    checks = record.reader  # what the gradients mean is decided by the reading (gradtutor.evidence)
    graph = record.graph
    tape_class = backprop.GradientTape
    originals = record.originals
    saved = {name: tape_class.__dict__[name] for name in
             ("__init__", "_push_tape", "_pop_tape", "watch", "gradient", "jacobian", "batch_jacobian")}
    originals.append((tape_class, dict(saved)))
    if OBSERVERS:  # beneath the checks: each gradient a tape returns, as TensorFlow returned it
        saved["gradient"] = _observed(record, saved["gradient"])
    tensor_class = ops._EagerTensorBase
    originals.append((tensor_class, {name: tensor_class.__dict__.get(name)
                                     for name in ("numpy", "__array__", "__float__", "__int__", "__array_function__")}))

    def init(tape, persistent=False, watch_accessed_variables=True):
        saved["__init__"](tape, persistent, watch_accessed_variables)
        info = tape.__dict__["_gradtutor"] = TapeInfo(tape, user_frame(), persistent, watch_accessed_variables)
        sampling.tape_made(record, info, tf.executing_eagerly())

    def push(tape):
        saved["_push_tape"](tape)
        info = tape_info(record, tape)
        info.pushed = graph.seq
        graph.began(info)

    def pop(tape):
        saved["_pop_tape"](tape)
        graph.ended(tape_info(record, tape))

    def watch(tape, tensor):
        if record.listeners:
            tell(record, "watched", tape, tensor)
        return checks.watch(record, tape, tensor, saved["watch"])

    def gradient(tape, target, sources, output_gradients=None, unconnected_gradients=None):
        if record.listeners:
            tell(record, "gradient_asked", "gradient", tape, target, sources, unconnected_gradients, caller())
        return observed(record, "gradient", caller(), lambda: checks.gradient(
            record, tape, target, sources, output_gradients, unconnected_gradients, saved))

    def jacobian(tape, target, sources, *args, **kwargs):
        if record.listeners:
            tell(record, "gradient_asked", "jacobian", tape, target, sources, kwargs.get("unconnected_gradients"), caller())
        return observed(record, "jacobian", caller(), lambda: checks.jacobian(
            record, "jacobian", tape, target, sources, args, kwargs, saved))

    def batch_jacobian(tape, target, source, *args, **kwargs):
        if record.listeners:
            tell(record, "gradient_asked", "batch_jacobian", tape, target, source, kwargs.get("unconnected_gradients"),
                 caller())
        return observed(record, "batch_jacobian", caller(), lambda: checks.jacobian(
            record, "batch_jacobian", tape, target, source, args, kwargs, saved))

    for name, function in (("__init__", init), ("_push_tape", push), ("_pop_tape", pop), ("watch", watch),
                           ("gradient", gradient), ("jacobian", jacobian), ("batch_jacobian", batch_jacobian)):
        setattr(tape_class, name, functools.wraps(saved[name])(function))
    _patch_exits(record, tensor_class, originals[-1][1])
    graph_functions.patch(record, tf, observed, OBSERVERS)
    _patch_numpy(record, tensor_class)
    _patch_fast_path(record)
    traced.patch(record)
    record.keras_pending = True
    optimizers.patch_when_loaded(record)
    record.eager_functions = tf.config.functions_run_eagerly()
    if record.listeners:
        listening.patch(record)
    optimizers.watch_freezing(record)  # `layer.trainable = False`: the line a frozen weight's empty list comes from
    rebinding.patch_trackable(record)  # `model.w = 0.1` where w was a tf.Variable: the line that dropped it
    forward.patch(record)  # ForwardAccumulator: its jvp is a gradient call, checked like a tape's
    graph_module.patch_conversions(record)  # tf.constant / tf.convert_to_tensor: the line that made a tensor no op made
    custom_gradients.link(record)  # a custom gradient's outputs come from its inputs, whatever ran inside
    graph.scope_name = lambda: tf_context.context().scope_name  # an activation's layer (graph.py)
    op_callbacks.add_op_callback(graph.callback)
    _patch_threads(record, op_callbacks)


AUTOGRAPH = "tensorflow.python.autograph"  # converted_call: how a traced step calls the user's tape.gradient


def observed(record, kind: str, asker: str, call):
    """Run one gradient call and write what it returned or raised into the record's observations, whatever the
    reading concludes: eager values on the site's sampled calls, a traced call's None now (its values are
    checked in the graph, traced.py). The reading's own calls (record.busy) and TensorFlow's (forward mode's and
    pfor's tapes inside the call the user made: `asker`, listening.caller) are not the user's."""
    import tensorflow as tf

    if record.busy or asker.startswith("tensorflow") and not asker.startswith(AUTOGRAPH):
        return call()
    eager = tf.executing_eagerly()
    site = record.observations.called(kind if eager else "compiled", user_frame())
    try:
        result = call()
    except Exception as error:
        record.observations.raised(site, error, raised_at(error))
        raise
    flat = tf.nest.flatten(result, expand_composites=False) if result is not None else [None]
    record.observations.gradients(site, flat, eager and record.observations.reads_values(site))
    if not eager and any(g is not None for g in flat):  # until traced.Tracing._check reads it; a tf.Graph's, never
        record.observations.unread(site, "compiled" if tf.compat.v1.executing_eagerly_outside_functions() else "graph")
    return result


def _patch_threads(record, op_callbacks) -> None:
    """TensorFlow's op callbacks are per thread: a thread started while recording (a Python thread calling
    the model, a tf.distribute replica) gets the same callback first thing."""
    import threading

    bootstrap = threading.Thread._bootstrap_inner
    record.originals.append((threading.Thread, {"_bootstrap_inner": bootstrap}))
    callback = record.graph.callback

    def _bootstrap_inner(thread):
        try:
            op_callbacks.add_op_callback(callback)
        except Exception:  # noqa: BLE001 - a thread without the callback is only unseen
            pass
        bootstrap(thread)

    threading.Thread._bootstrap_inner = functools.wraps(bootstrap)(_bootstrap_inner)


def _patch_exits(record, tensor_class, saved) -> None:
    graph = record.graph

    def numpy(tensor):
        if record.listeners:
            tell(record, "left", ".numpy()", caller())
        graph.exit(tensor, ".numpy()")
        return saved["numpy"](tensor)

    def array(tensor, dtype=None):
        if record.listeners:
            tell(record, "left", "numpy", caller())
        graph.exit(tensor, "numpy")
        return saved["__array__"](tensor, dtype)

    def to_float(tensor):
        if record.listeners:
            tell(record, "left", "float()", caller())
        graph.exit(tensor, "float()")
        return saved["__float__"](tensor)

    def to_int(tensor):
        graph.exit(tensor, "int()")
        return saved["__int__"](tensor)

    def array_function(tensor, func, types, args, kwargs):
        """NumPy's dispatch (NEP 18): a numpy function called on tensors, e.g. np.sum(t), np.mean(t)."""
        if record.listeners:
            tell(record, "left", f"np.{func.__name__}", caller())

        by = sys._getframe(1).f_code.co_filename  # the code that called np.FUNC

        def plain(value):
            if isinstance(value, tensor_class):
                graph.exit(value, f"np.{func.__name__}", by)
                return value._numpy()
            if type(value) in (list, tuple):
                return type(value)(plain(v) for v in value)
            return value

        return func(*plain(args), **{k: plain(v) for k, v in kwargs.items()})

    for name, function in (("numpy", numpy), ("__array__", array), ("__float__", to_float), ("__int__", to_int)):
        setattr(tensor_class, name, functools.wraps(saved[name])(function))
    tensor_class.__array_function__ = array_function


class _Ufunc:
    """A numpy ufunc or converter that notes the tensors passed to it (their values leave TensorFlow), then runs."""

    def __init__(self, record, tensor_class, ufunc):
        self._record, self._tensor_class, self._ufunc = record, tensor_class, ufunc
        self.__name__, self.__doc__ = ufunc.__name__, ufunc.__doc__

    def __call__(self, *args, **kwargs):
        for arg in args:
            for item in (arg if type(arg) in (list, tuple) else (arg,)):
                if isinstance(item, self._tensor_class):
                    if self._record.listeners:
                        tell(self._record, "left", f"np.{self._ufunc.__name__}", caller())
                    self._record.graph.exit(item, f"np.{self._ufunc.__name__}")
        return self._ufunc(*args, **kwargs)

    def __getattr__(self, name):  # reduce, accumulate, nin, …
        return getattr(self._ufunc, name)


CONVERTERS = ("array", "asarray", "asanyarray", "ascontiguousarray")  # C functions: no __array_function__


class _Indices:
    """np.argmax and its kin: given the numpy copy of a tensor (np.argmax(t.numpy())), nothing of TensorFlow sees
    the call; the copy's exit at the same line is told what it went into (graph.Graph.went_into)."""

    def __init__(self, record, function):
        self._record, self._function = record, function
        self.__name__, self.__doc__ = function.__name__, function.__doc__

    def __call__(self, *args, **kwargs):
        graph = self._record.graph
        if not graph.paused and not graph.off:
            frame = user_frame()
            if frame is not None:
                graph.went_into(frame, f"np.{self._function.__name__}")
        return self._function(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._function, name)


def _patch_numpy(record, tensor_class) -> None:
    """np.log(t), np.array(t), …: numpy reads a tensor through the buffer protocol, which nothing sees."""
    import numpy as np

    names = [name for name in dir(np) if not name.startswith("_") and isinstance(getattr(np, name), np.ufunc)]
    names += [name for name in CONVERTERS if hasattr(np, name)]
    indices = [name for name in (kind[3:] for kind in graph_module.INDICES) if hasattr(np, name)]
    record.originals.append((np, {name: getattr(np, name) for name in names + indices}))
    for name in names:
        setattr(np, name, _Ufunc(record, tensor_class, getattr(np, name)))
    for name in indices:
        setattr(np, name, _Indices(record, getattr(np, name)))


def _patch_fast_path(record) -> None:
    """Ops given a variable take the Python path, whose ReadVariableOp the op callback sees (gradtutor.evidence.recording.variable_reads)."""
    from tensorflow.python import pywrap_tfe

    fast, fast_path = variable_reads.fast_path_reading_variables_in_python()
    record.originals.append((pywrap_tfe, {"TFE_Py_FastPathExecute": fast}))
    record.sampling.fast, record.sampling.fast_path = fast, fast_path  # swapped while ops go unrecorded
    pywrap_tfe.TFE_Py_FastPathExecute = fast_path


def uninstall(record) -> None:
    import tensorflow as tf
    from tensorflow.python.framework import op_callbacks

    if record.graph.traced is not None:  # the compiled steps run since their monitors were last read (traced.py)
        record.graph.traced.flush()
    try:
        op_callbacks.remove_op_callback(record.graph.callback)
    except KeyError:
        pass
    for owner, saved in reversed(record.originals):
        for name, original in saved.items():
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
    record.originals.clear()
    for op in (*record.graph.kept, *record.graph.replayable):  # the tensors kept for analysis are let go
        op.values = None
    record.graph.kept.clear()
    record.graph.replayable.clear()
    record.graph.traced = None
    tf.config.run_functions_eagerly(bool(record.eager_functions))
