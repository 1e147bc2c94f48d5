"""How a child tells the parent what learner code returned or raised: plain descriptions, never objects.

A returned value becomes a ValueDescription (its kind, dtype and shape) and its
numbers go into the job's .npz file; an exception becomes an ErrorDescription
naming the learner's own last frame. The parent compares and words them; it
never sees (or unpickles) anything the learner's code made.
"""
from __future__ import annotations

import traceback

from gradtutor.protocol import ErrorDescription, ValueDescription, ValueKind
from gradtutor.messages import say
from gradtutor.seeds import is_hidden

MAX_ITEMS = 16  # longest tuple/list of results we describe
MAX_ELEMENTS = 10_000_000  # larger arrays are described, not sent


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
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename in labels:
            where = say("files.line", where=frame.filename, line=frame.lineno)
            line = frame.line
    return {"type": kind, "message": message[:500], "where": where, "line": line, "seed": seed}


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
