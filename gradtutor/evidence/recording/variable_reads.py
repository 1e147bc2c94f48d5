"""Make every op given a tf.Variable read it through TensorFlow's Python path, where an op callback sees the read.

The C fast path (`TFE_Py_FastPathExecute`) reads a variable input itself, and that read
reaches no op callback: `tf.argmax(v)` then looks like an op on a tensor that came from
nowhere. The generated op wrappers fall back to Python on `_FallbackException`, and the
Python path runs a ReadVariableOp the callback records. Used while recording only, by the
checker's run facts and by `gradtutor explain`'s evidence. Below: how a recorder tells a variable
(a tf.Variable, or the one inside a Keras 3 keras.Variable) and the id the eager tape knows it by.
"""
from __future__ import annotations


def fast_path_reading_variables_in_python():
    """(the original TFE_Py_FastPathExecute, a replacement that sends variable inputs to the Python path)."""
    from tensorflow.python import pywrap_tfe
    from tensorflow.python.eager import core
    from tensorflow.python.ops.resource_variable_ops import BaseResourceVariable

    fast = pywrap_tfe.TFE_Py_FastPathExecute
    is_variable_type: dict = {}  # type -> is it a resource variable (isinstance through the ABC is slow)

    def variable(value) -> bool:
        kind = type(value)
        found = is_variable_type.get(kind)
        if found is None:
            found = is_variable_type[kind] = issubclass(kind, BaseResourceVariable)
        return found

    def fast_path(*args):
        for arg in args:
            if variable(arg) or (type(arg) in (list, tuple) and any(variable(a) for a in arg)):
                raise core._FallbackException("gradtutor: read the variable in Python")
        return fast(*args)

    return fast, fast_path


def is_variable(value) -> bool:
    return hasattr(inner_variable(value), "assign")


def inner_variable(value):
    """The tf.Variable inside a Keras 3 keras.Variable (what the tape really watches); else the value."""
    kind = type(value)
    if "keras" in kind.__module__ and kind.__name__ == "Variable":
        return getattr(value, "value", value)
    return value


def variable_handle(value):
    """What the op graph knows a source by: a variable's handle (what a read op takes), else the tensor itself."""
    value = inner_variable(value)
    handle = getattr(value, "handle", None) if hasattr(value, "assign") else None
    return handle if handle is not None else value


def tensor_id(value):
    """The id the eager tape knows a tensor by; for a variable, its handle's (what a read op takes)."""
    value = inner_variable(value)
    handle = getattr(value, "handle", None) if hasattr(value, "assign") else None
    return getattr(handle if handle is not None else value, "_id", None)
