"""Light run-time facts about one call of a learner's function, recorded in the child that runs it.

Not a tape recorder: during the call, tf.GradientTape's methods are wrapped and an
eager op callback notes which op types ran while a tape was recording and which
tensors were made then. That is enough to tell the parent what the code *did*
(gradtutor.diagnose turns facts into a cause): whether a source passed to
tape.gradient was watched, whether a target was made outside the recording, whether
a tensor left TensorFlow (.numpy(), np.*) while recording, whether a variable was
assigned (a stateful layer's state), and whether the inputs were changed.
The payload is a RunFacts dict (gradtutor.payloads); the evidence layer may feed it later.
"""
from __future__ import annotations

import contextlib
import sys

import numpy as np

# ops whose output has no gradient with respect to a float input (TensorFlow's own loops and masks
# compare integer counters; only a float input turned integer-valued counts)
INTEGER_OPS = frozenset({"ArgMax", "ArgMin", "Round", "Floor", "Ceil", "Sign", "Cast", "TopKV2"})
NUMPY_FUNCTIONS = ("square", "sum", "mean", "exp", "log", "sin", "cos", "tanh", "sqrt", "abs", "max", "min", "dot",
                   "matmul", "array", "asarray", "clip", "maximum", "minimum", "power", "multiply", "add", "subtract",
                   "divide", "argmax", "round", "where", "stack", "concatenate", "einsum", "tensordot")
MAX_OPS = 64
LIBRARIES = ("tensorflow", "keras", "numpy", "optree", "absl")  # their own conversions are not the learner's  # op types kept in the payload


class _Recorder:
    def __init__(self, args):
        self.args = args
        self.active = 0  # tapes recording now
        self.inside: set = set()  # _id of tensors made while a tape was recording
        self.used: set = set()  # _id of tensors an op read while a tape was recording
        self.outside: set = set()  # _id of tensors this call made while no tape recorded
        self.watched: list = []
        self.facts: dict = {}

    def note(self, key, value=True):
        self.facts[key] = value

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
            self.outside.update(t._id for t in outputs or () if getattr(t, "_id", None) is not None)
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
                self.note("assigned_variable")
            if op_type == "StopGradient":
                self.note("stop_gradient")
            self.used.update(getattr(t, "_id", None) for t in inputs or ())
            self.inside.update(getattr(t, "_id", None) for t in outputs or ())
        return None

    def is_watched(self, tape, source) -> bool:
        inner = _inner(source)
        if any(inner is _inner(w) for w in self.watched):
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
            elif getattr(one, "_id", None) is not None and one._id not in self.inside:
                self.note("target_outside")
            shape = getattr(one, "shape", ())
            if len(targets) > 1 or shape is not None and np.prod([d or 1 for d in shape]) > 1:
                self.note("nonscalar_target")
        flat = sources if isinstance(sources, (list, tuple)) else [sources]
        if not isinstance(sources, dict) and any(not self.is_watched(tape, s) for s in flat):
            self.note("source_unwatched")


@contextlib.contextmanager
def recording(args, into: dict):
    """Record facts into `into` (a RunFacts dict) while the learner's function runs."""
    import tensorflow as tf
    from tensorflow.python.framework import op_callbacks, ops

    recorder = _Recorder(args)
    recorder.facts = into
    into.update({"watch_calls": [], "ops": [], "gradient_calls": 0})
    tape_class = tf.GradientTape
    saved = {name: getattr(tape_class, name)
             for name in ("__enter__", "__exit__", "watch", "gradient", "jacobian", "batch_jacobian")}
    eager_base = ops._EagerTensorBase
    saved_numpy, saved_array, saved_float = eager_base.numpy, eager_base.__array__, eager_base.__float__

    def enter(self):
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
            if _tensor_id(one) in recorder.used:
                recorder.note("watched_late")
        return saved["watch"](self, tensor)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=None, **kwargs):
        recorder.gradient(self, target, sources, unconnected_gradients)
        if unconnected_gradients is None:
            unconnected_gradients = tf.UnconnectedGradients.NONE
        return saved["gradient"](self, target, sources, output_gradients, unconnected_gradients, **kwargs)

    def jacobians(name):
        def jacobian(self, target, source, *args, **kwargs):
            recorder.gradient(self, target, source, kwargs.get("unconnected_gradients"))
            return saved[name](self, target, source, *args, **kwargs)
        return jacobian

    def leaving(original, anyone=False):
        def convert(self, *a, **k):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if recorder.active and (anyone or not caller.startswith(LIBRARIES)):
                recorder.note("left_tensorflow")
            return original(self, *a, **k)
        return convert

    import keras

    saved_predict = keras.Model.predict
    keras.Model.predict = leaving(saved_predict, anyone=True)  # returns numpy: the path leaves TensorFlow

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
                recorder.note("left_tensorflow")
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
    op_callbacks.add_op_callback(recorder.op)
    try:
        yield recorder.facts
    finally:
        op_callbacks.remove_op_callback(recorder.op)
        for name, original in saved.items():
            setattr(tape_class, name, original)
        for name, original in forward.items():
            setattr(accumulator, name, original)
        eager_base.numpy, eager_base.__array__, eager_base.__float__ = saved_numpy, saved_array, saved_float
        for name, original in numpy_saved.items():
            setattr(np, name, original)
        keras.Model.predict = saved_predict


def fresh(args: list) -> list:
    """Copies of a call's inputs, so an answer that changes what it was given cannot change the next call's."""
    import keras
    import tensorflow as tf

    copies = []
    for arg in args:
        if isinstance(arg, keras.Model):
            clone = keras.models.clone_model(arg)
            clone.set_weights(arg.get_weights())
            copies.append(clone)
        elif isinstance(arg, keras.layers.Layer) or not hasattr(arg, "dtype"):
            copies.append(arg)  # a layer carries its own state; the lesson's references reset it themselves
        elif isinstance(arg, keras.Variable):
            copies.append(keras.Variable(arg.numpy(), trainable=arg.trainable, name=arg.name))
        elif isinstance(arg, tf.Variable):
            copies.append(tf.Variable(arg.numpy(), trainable=arg.trainable, name=arg.name.split(":")[0]))
        else:
            copies.append(arg)  # tensors and arrays: immutable, or compared afterwards
    return copies


def _inner(value):
    """The tf.Variable inside a Keras 3 keras.Variable (what the tape really watches); else the value."""
    kind = type(value)
    if "keras" in kind.__module__ and kind.__name__ == "Variable":
        return getattr(value, "value", value)
    return value


def _tensor_id(value):
    """The id the eager tape knows a tensor by; for a variable, its handle's (what a read op takes)."""
    value = _inner(value)
    handle = getattr(value, "handle", None) if hasattr(value, "assign") else None
    return getattr(handle if handle is not None else value, "_id", None)


def snapshot(args) -> list:
    """Copies of every input's numbers (a model's weights, a variable's or tensor's values)."""
    return [_numbers(arg) for arg in args]


def changed(args, before: list) -> list[str]:
    """The inputs whose numbers, structure or layers differ from the snapshot."""
    found = []
    for index, (arg, old) in enumerate(zip(args, before)):
        new = _numbers(arg)
        if len(new) != len(old) or any(a.shape != b.shape or not np.array_equal(a, b, equal_nan=True)
                                       for a, b in zip(new, old)):
            found.append(f"input {index} ({_kind(arg)})")
    return found


def _numbers(arg) -> list:
    import keras

    if isinstance(arg, keras.Model):
        layers = [np.array([hash((type(layer).__name__, str(getattr(layer, "activation", ""))))])
                  for layer in arg.layers]
        return [np.array(w) for w in arg.get_weights()] + layers
    if isinstance(arg, keras.layers.Layer):
        return [np.array(w) for w in arg.get_weights()] + [np.array([hash(str(getattr(arg, "activation", "")))])]
    try:
        return [np.array(arg)]
    except Exception:  # noqa: BLE001 - an input we cannot read is not compared
        return []


def _kind(arg) -> str:
    return "the model" if hasattr(arg, "layers") else "a layer" if hasattr(arg, "get_weights") else "a tensor"
