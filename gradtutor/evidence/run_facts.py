"""Light run-time facts about one call of a learner's function, recorded in the child that runs it.

During the call, tf.GradientTape's methods are wrapped and an eager op callback notes which op
types ran while a tape was recording and which tensors were made then: enough to tell the parent
what the code *did* (gradtutor.diagnose turns facts into a cause) — a source never watched, a
target made outside the recording, a value taken out of TensorFlow (.numpy(), np.*,
tf.numpy_function), a variable assigned or replaced between gradient calls, the op that broke the
path (gradtutor.evidence.tape_graph, through the gradient registry as `gradtutor explain` reads it)
— and, per cause it can place, the learner's line (`broke_at`, quoted). A RunFacts dict (payloads).
"""
from __future__ import annotations

import contextlib
import sys

import numpy as np

from gradtutor.evidence import variable_reads
from gradtutor.evidence.tape_graph import TapeGraph, learner_site

# ops whose output has no gradient with respect to a float input (TensorFlow's own loops and masks
# compare integer counters; only a float input turned integer-valued counts)
INTEGER_OPS = frozenset({"ArgMax", "ArgMin", "Round", "Floor", "Ceil", "Sign", "Cast", "TopKV2"})
NUMPY_FUNCTIONS = ("square", "sum", "mean", "exp", "log", "sin", "cos", "tanh", "sqrt", "abs", "max", "min", "dot",
                   "matmul", "array", "asarray", "clip", "maximum", "minimum", "power", "multiply", "add", "subtract",
                   "divide", "argmax", "round", "where", "stack", "concatenate", "einsum", "tensordot")
MAX_OPS = 64  # op types kept in the payload
OUTSIDE_SITES = 4096  # lines kept of tensors made outside the tape: a flood of ops costs no more than these
LIBRARIES = ("tensorflow", "keras", "numpy", "optree", "absl")  # their own conversions are not the learner's


class _Recorder:
    def __init__(self, args, labels: frozenset = frozenset()):
        self.args = args
        self.labels = labels
        self.graph = TapeGraph(lambda: learner_site(labels))
        self.tape_sites: dict = {}  # id(tape) -> the learner's line that opened it (`with tf.GradientTape() …`)
        self.last_sources: list = []  # the previous gradient call's sources, to see one replaced
        self.active = 0  # tapes recording now
        self.inside: set = set()  # _id of tensors made while a tape was recording
        self.used: set = set()  # _id of tensors an op read while a tape was recording
        self.outside: set = set()  # _id of tensors this call made while no tape recorded
        self.outside_sites: dict = {}  # _id of the first of them -> the learner's line that made it
        self.watched: list = []
        self.facts: dict = {}

    def note(self, key, value=True):
        self.facts[key] = value

    def left(self, key: str) -> None:  # a value left TensorFlow while recording: at the learner's line
        self.note(key)
        self.here("leaves-tensorflow")

    def describe(self, value) -> str:
        for index, arg in enumerate(self.args):
            if value is arg:
                return f"input {index}"
        kind = type(value)
        if isinstance(value, np.ndarray) or isinstance(value, np.generic):
            return "a numpy array"
        if "keras" in kind.__module__ and kind.__name__ == "Variable":
            return "a keras.Variable"
        return "a variable" if "Variable" in kind.__name__ else "another tensor"

    def op(self, op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if not self.active and graph is None:
            made = [t._id for t in outputs or () if getattr(t, "_id", None) is not None]
            self.outside.update(made)
            if made and len(self.outside_sites) < OUTSIDE_SITES:
                self.outside_sites[made[0]] = learner_site(self.labels)
        if self.active and graph is None:
            if any(getattr(t, "_id", None) in self.outside for t in inputs or ()):
                self.note("outside_input")
            op_type = op_type.decode() if isinstance(op_type, bytes) else str(op_type)
            ops = self.facts["ops"]
            if op_type not in ops and len(ops) < MAX_OPS:
                ops.append(op_type)
            if op_type in INTEGER_OPS and inputs and inputs[0].dtype.is_floating and \
                    (op_type != "Cast" or outputs and not outputs[0].dtype.is_floating):
                self.note("integer_op", op_type)
            if op_type in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
                self.note("assigned_variable")  # a layer's state (or the learner) wrote a variable: that line
                self.here("state-breaks-path")
            if op_type == "Softmax":  # a whole softmax row sums to 1: the line that ran it
                self.here("softmax-sum")
            if op_type == "StopGradient":
                self.note("stop_gradient")
            self.graph.add(op_type, inputs, outputs)
            if self.graph.saturated:
                self.note("saturated")
            if self.graph.nonfinite_at is not None and "nonfinite_at" not in self.facts:
                self.note("nonfinite_at", self.graph.nonfinite_at)
            self.used.update(getattr(t, "_id", None) for t in inputs or ())
            self.inside.update(getattr(t, "_id", None) for t in outputs or ())
        return None

    def is_watched(self, tape, source) -> bool:
        inner = variable_reads.inner_variable(source)
        if any(inner is variable_reads.inner_variable(w) for w in self.watched):
            return True
        trainable = getattr(inner, "trainable", False) and hasattr(inner, "assign")
        return bool(trainable and getattr(tape, "_watch_accessed_variables", True))

    def gradient(self, tape, target, sources, unconnected):
        self.facts["gradient_calls"] += 1
        if self.active and getattr(tape, "_recording", False):
            self.note("gradient_while_recording")
        if "ZERO" in str(unconnected):
            self.note("zero_fill")
        targets = target if isinstance(target, (list, tuple)) else [target]
        for one in targets:
            if isinstance(one, (np.ndarray, np.generic, float, int)):
                self.note("target_left_tensorflow")
                self.here("leaves-tensorflow")  # the call given a number
            elif getattr(one, "_id", None) is not None and one._id not in self.inside:
                self.note("target_outside")
                self.broke_at("outside-tape", self.outside_sites.get(one._id))  # the line that made it
            shape = getattr(one, "shape", ())
            if len(targets) > 1 or shape is not None and np.prod([d or 1 for d in shape]) > 1:
                self.note("nonscalar_target")
        flat = sources if isinstance(sources, (list, tuple)) else [sources]
        if isinstance(sources, (list, tuple)) and not sources:
            self.note("no_sources")
        if isinstance(sources, dict):
            return
        if any(not self.is_watched(tape, s) for s in flat):
            self.note("source_unwatched")
            self.broke_at("unwatched", self.tape_sites.get(id(tape)))  # the tape that never watched it
        self.replaced(flat)
        reached, cuts = self.graph.walk({getattr(t, "_id", None) for t in targets}, {variable_reads.tensor_id(s) for s in flat})
        if cuts and not reached and "path_break" not in self.facts:
            self.note("path_break", cuts[0][0])
            self.broke_at(cuts[0][0], cuts[0][2])
        carried = [(cause, site) for cause, mask, site in cuts if not mask]
        if carried and "path_cut" not in self.facts:
            self.note("path_cut", carried[0][0])
            self.broke_at(*carried[0])

    def broke_at(self, cause: str, site: str | None) -> None:
        if site and cause not in self.facts.setdefault("broke_at", {}):
            self.facts["broke_at"][cause] = site

    def here(self, cause: str) -> None:  # the learner's line running now, for `cause`: one frame walk
        if cause not in self.facts.get("broke_at", {}):
            self.broke_at(cause, learner_site(self.labels))

    def replaced(self, sources: list) -> None:
        """A source that was a variable in the last gradient call is now a tensor, or another variable
        of the same name and shape: the name was rebound (w = w - lr * g, or a new tf.Variable per step)."""
        for old, new in zip(self.last_sources, sources):
            if old is new or not variable_reads.is_variable(old) or getattr(old, "shape", None) != getattr(new, "shape", None):
                continue
            if not variable_reads.is_variable(new) or getattr(new, "name", None) == getattr(old, "name", None):
                self.note("variable_replaced")
        self.last_sources = list(sources)


@contextlib.contextmanager
def recording(args, into: dict, labels: frozenset = frozenset()):
    """Record facts into `into` (a RunFacts dict) while the learner's function runs (its cells: `labels`)."""
    import tensorflow as tf
    from tensorflow.python.framework import op_callbacks, ops

    recorder = _Recorder(args, labels=labels)
    recorder.facts = into
    into.update({"watch_calls": [], "ops": [], "gradient_calls": 0})
    tape_class = tf.GradientTape
    saved = {name: getattr(tape_class, name)
             for name in ("__enter__", "__exit__", "watch", "gradient", "jacobian", "batch_jacobian")}
    eager_base = ops._EagerTensorBase
    saved_numpy, saved_array, saved_float = eager_base.numpy, eager_base.__array__, eager_base.__float__

    def learner_call(kind: str) -> None:
        """Count a call by the learner's code (two frames up), not TensorFlow's (jacobian calls gradient)."""
        if not sys._getframe(2).f_globals.get("__name__", "").startswith(LIBRARIES):
            calls = recorder.facts.setdefault("learner_calls", {})
            calls[kind] = calls.get(kind, 0) + 1

    def enter(self):
        learner_call("tapes")
        recorder.tape_sites[id(self)] = learner_site(labels)
        recorder.active += 1
        recorder.facts["tapes"] = recorder.facts.get("tapes", 0) + 1
        return saved["__enter__"](self)

    def leave(self, *exc):
        recorder.active = max(0, recorder.active - 1)
        return saved["__exit__"](self, *exc)

    def watch(self, tensor):
        for one in tensor if isinstance(tensor, (list, tuple)) else [tensor]:
            recorder.facts["watch_calls"].append(recorder.describe(one))
            recorder.watched.append(one)
            if variable_reads.tensor_id(one) in recorder.used:
                recorder.note("watched_late")
        return saved["watch"](self, tensor)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=None, **kwargs):
        learner_call("gradient")
        recorder.gradient(self, target, sources, unconnected_gradients)
        if unconnected_gradients is None:
            unconnected_gradients = tf.UnconnectedGradients.NONE
        return saved["gradient"](self, target, sources, output_gradients, unconnected_gradients, **kwargs)

    def jacobians(name):
        def jacobian(self, target, source, *args, **kwargs):
            learner_call("jacobian")
            recorder.gradient(self, target, source, kwargs.get("unconnected_gradients"))
            return saved[name](self, target, source, *args, **kwargs)
        return jacobian

    def leaving(original, anyone=False):
        def convert(self, *a, **k):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if recorder.active and (anyone or not caller.startswith(LIBRARIES)):
                recorder.left("left_tensorflow")
            return original(self, *a, **k)
        return convert

    import keras

    saved_predict = keras.Model.predict
    keras.Model.predict = leaving(saved_predict, anyone=True)  # returns numpy: the path leaves TensorFlow
    # eagerly, tf.numpy_function calls its Python function directly: no op is recorded, the result is a constant
    saved_numpy_function, saved_add_weight = tf.numpy_function, keras.layers.Layer.add_weight

    def numpy_function(*a, **k):
        if recorder.active:
            recorder.left("numpy_function")
        return saved_numpy_function(*a, **k)

    def add_weight(self, *a, **k):
        if k.get("trainable") is False:
            recorder.note("frozen_variable")  # made, tracked, and left out of trainable_variables
        return saved_add_weight(self, *a, **k)

    tf.numpy_function, keras.layers.Layer.add_weight = numpy_function, add_weight

    # numpy reads a tensor through the buffer protocol, which no Python method sees: wrap the
    # numpy functions a learner calls on tensors instead (calls from TensorFlow's own code are not the learner's)
    numpy_saved = {name: getattr(np, name) for name in NUMPY_FUNCTIONS if hasattr(np, name)}

    class numpy_call:  # noqa: N801 - stands in for a numpy function; ufunc attributes (.reduce) pass through
        def __init__(self, original):
            self._original = original

        def __getattr__(self, name):
            return getattr(self._original, name)

        def __call__(self, *a, **k):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if recorder.active and not caller.startswith(LIBRARIES) and \
                    any(isinstance(v, ops._EagerTensorBase) for v in (*a, *k.values())):
                recorder.left("left_tensorflow")
            return self._original(*a, **k)

    for name, original in numpy_saved.items():
        setattr(np, name, numpy_call(original))
    patches = {"__enter__": enter, "__exit__": leave, "watch": watch, "gradient": gradient,
               "jacobian": jacobians("jacobian"), "batch_jacobian": jacobians("batch_jacobian")}
    for name, patch in patches.items():
        setattr(tape_class, name, patch)
    # forward mode records like a tape: the same facts, with acc.jvp as the gradient call
    accumulator = tf.autodiff.ForwardAccumulator
    forward = {name: getattr(accumulator, name) for name in ("__enter__", "__exit__", "jvp")}

    def jvp(self, primals, *args, **kwargs):
        learner_call("jvp")
        recorder.facts["gradient_calls"] += 1
        for one in primals if isinstance(primals, (list, tuple)) else [primals]:
            if getattr(one, "_id", None) is not None and one._id not in recorder.inside:
                recorder.note("target_outside")
        return forward["jvp"](self, primals, *args, **kwargs)

    accumulator.__enter__ = lambda self: (setattr(recorder, "active", recorder.active + 1), forward["__enter__"](self))[1]
    accumulator.__exit__ = lambda self, *exc: (setattr(recorder, "active", max(0, recorder.active - 1)),
                                               forward["__exit__"](self, *exc))[1]
    accumulator.jvp = jvp
    eager_base.numpy, eager_base.__array__ = leaving(saved_numpy), leaving(saved_array)
    eager_base.__float__ = leaving(saved_float)
    from tensorflow.python import pywrap_tfe

    fast, fast_path = variable_reads.fast_path_reading_variables_in_python()  # so tf.argmax(v) reads v visibly
    pywrap_tfe.TFE_Py_FastPathExecute = fast_path
    op_callbacks.add_op_callback(recorder.op)
    try:
        yield recorder.facts
    finally:
        op_callbacks.remove_op_callback(recorder.op)
        pywrap_tfe.TFE_Py_FastPathExecute = fast
        for name, original in saved.items():
            setattr(tape_class, name, original)
        for name, original in forward.items():
            setattr(accumulator, name, original)
        eager_base.numpy, eager_base.__array__, eager_base.__float__ = saved_numpy, saved_array, saved_float
        for name, original in numpy_saved.items():
            setattr(np, name, original)
        keras.Model.predict = saved_predict
        tf.numpy_function, keras.layers.Layer.add_weight = saved_numpy_function, saved_add_weight

