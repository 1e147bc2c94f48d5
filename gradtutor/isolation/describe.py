"""How a child tells the parent what learner code returned or raised: plain descriptions, never objects.

A returned value becomes a ValueDescription (its kind, dtype and shape) and its
numbers go into the job's .npz file; an exception becomes an ErrorDescription
naming the learner's own last frame. The parent compares and words them; it
never sees (or unpickles) anything the learner's code made.
"""
from __future__ import annotations

import os
import re
import traceback

from gradtutor.protocol import ErrorDescription, ValueDescription, ValueKind
from gradtutor.messages import say
from gradtutor.course.seeds import is_hidden

MAX_ITEMS = 16  # longest tuple/list of results we describe
MAX_ELEMENTS = 10_000_000  # larger arrays are described, not sent

# TensorFlow's modules that run a gradient computation: tape.gradient, jacobian and batch_jacobian (backprop,
# imperative_grad), ForwardAccumulator's jvp (forwardprop), tf.gradients (gradients_impl, gradients_util). An
# exception with one of their frames in its traceback was raised computing a gradient.
GRADIENT_FILES = tuple(f"tensorflow/python/{name}.py" for name in (
    "eager/backprop", "eager/imperative_grad", "eager/forwardprop", "ops/gradients_util", "ops/gradients_impl"))
# A graph's gradient ops are named under these scopes, and TensorFlow's messages name the node that failed and
# its inputs: a node of a gradient, or one fed by a gradient's (forward mode's tangents), is a gradient
# computation's (its traceback frames are gone when it was raised inside a tf.function or a traced jvp).
GRADIENT_NODE = re.compile(r"(\{\{node |Node: '|[(,] ?)(gradient_tape|gradients)(_\d+)?/")
# The op that raised, as TensorFlow names it: "[Op:Reshape]" eagerly, "{{node x}} = MatMul[...]" or a node's name.
OP_NAMES = (re.compile(r"\[Op:(\w+)\]"), re.compile(r"\{\{node [^}]*\}\} = (\w+)\["),
            re.compile(r"\{\{node ([^}]+)\}\}"), re.compile(r"Node: '([^']+)'"))


def describe_error(exc: BaseException, seed, labels: frozenset = frozenset()) -> ErrorDescription:
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
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in frames:
        if frame.filename in labels:
            where = say("files.line", where=frame.filename, line=frame.lineno)
            line = frame.line
    return {"type": kind, "message": message[:500], "where": where, "line": line, "seed": seed,
            "phase": raised_in(frames, message), "op": raising_op(message)}


def raised_in(frames, message: str) -> str:
    """"gradient" when a gradient computation raised (its frames are in the traceback, or the node that failed
    is a gradient op), else "forward": computing values, before, between or after gradient calls."""
    if any(frame.filename.replace(os.sep, "/").endswith(GRADIENT_FILES) for frame in frames):
        return "gradient"
    return "gradient" if GRADIENT_NODE.search(message) else "forward"


def raising_op(message: str) -> str | None:
    """The type of the op that raised, when TensorFlow's message names it ("Reshape", "MatMul"); a node's name
    gives its last part without a numbering suffix ("model/dense/MatMul_1" → "MatMul")."""
    for pattern in OP_NAMES:
        found = pattern.search(message)
        if found:
            name = re.sub(r"_\d+$", "", found.group(1).rsplit("/", 1)[-1])
            return name if re.fullmatch(r"[A-Za-z]\w*", name) else None
    return None


def describe_value(value, key: str, arrays: dict, depth: int = 0) -> ValueDescription:
    """A plain description of a returned value; its numbers go into `arrays` under `key`.

    Types are matched exactly, never through the value's own methods, so an
    object with a lying __eq__ or __array__ is just "other".
    """
    import numpy as np
    import tensorflow as tf

    kind = type(value)
    if value is None:
        return {"type": ValueKind.NONE.value}
    if kind in (tuple, list):
        sequence = ValueKind(kind.__name__).value
        if depth > 0 or len(value) > MAX_ITEMS:
            return {"type": sequence, "length": len(value), "items": None}
        items = [describe_value(item, f"{key}/{i}", arrays, depth + 1) for i, item in enumerate(value)]
        return {"type": sequence, "length": len(value), "items": items}
    if kind.__name__ == "EagerTensor" and kind.__module__.startswith("tensorflow."):
        return _array(value.numpy(), ValueKind.TENSOR, key, arrays, value.dtype.name)
    if isinstance(value, tf.Variable) and type(value).__module__.startswith(("tensorflow.", "keras.")):
        return _array(value.numpy(), ValueKind.VARIABLE, key, arrays, value.dtype.name)
    if kind is tf.IndexedSlices:
        return _array(tf.convert_to_tensor(value).numpy(), ValueKind.INDEXED_SLICES, key, arrays, value.dtype.name)
    if kind.__module__ == "keras.src.backend.common.variables" or kind.__name__ == "Variable" and "keras" in kind.__module__:
        return {"type": ValueKind.KERAS_VARIABLE.value}
    if kind is np.ndarray:
        return _array(value, ValueKind.NDARRAY, key, arrays, value.dtype.name)
    if isinstance(value, np.generic) and type(value).__module__ == "numpy":
        return _array(np.asarray(value), ValueKind.NUMPY_SCALAR, key, arrays, value.dtype.name)
    if kind in (float, int, bool):
        return _array(np.asarray(value), ValueKind(kind.__name__), key, arrays, None)
    return {"type": ValueKind.OTHER.value, "name": f"{kind.__module__}.{kind.__qualname__}"[:120]}


def _array(array, kind: ValueKind, key: str, arrays: dict, dtype: str | None) -> ValueDescription:
    import numpy as np

    described: ValueDescription = {"type": kind.value, "dtype": dtype or array.dtype.name, "shape": list(array.shape)}
    if array.dtype.kind in "biufc" and array.size <= MAX_ELEMENTS:
        arrays[key] = np.array(array, copy=True)
        described["key"] = key
    return described


def input_shapes(inputs: dict) -> dict:
    """name -> shape of every input that is an array with a known shape (a diagnosis reads counts from them:
    a factor of exactly 1/N where x has N elements is a mean over x)."""
    shapes = {}
    for name, value in inputs.items():
        try:
            shapes[name] = [int(d) for d in value.shape]
        except (AttributeError, TypeError, ValueError):
            continue  # a model, a layer, a number: no shape of its own
    return shapes


def describe_variants(exercise, key: str, seed, arrays: dict) -> dict:
    """variant id -> description of what that mistake computes on this seed's inputs (each on fresh inputs);
    a variant that raises is left out: it only ever names a mistake, never decides a verdict."""
    described = {}
    if is_hidden(seed):
        return described  # a hidden input's diagnosis says what is wrong, never what was computed
    for name, variant in exercise.variants.items():
        try:
            value = variant(*exercise.build(seed).values())
        except Exception:  # noqa: BLE001 - a variant that does not apply to these inputs names nothing
            continue
        described[name] = describe_value(value, f"{key}/{name}", arrays)
    return described
