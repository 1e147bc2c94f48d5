"""Eager reads and writes of a variable, each run by the op itself (`execute.quick_execute`).

Right after a compiled step, the Python paths around an eager op (and the recording's own patches of them,
variable_reads.py) cost a small read several times what the op does: the monitors' reads (monitors.py) and the
snapshots of a step's variables (snapshot.py) go through here instead.
"""
from __future__ import annotations


def read(handle, dtype):
    """The value of the variable behind HANDLE (an eager tensor)."""
    from tensorflow.python.eager import context, execute
    from tensorflow.python.framework import dtypes

    kind = dtypes.as_dtype(dtype).as_datatype_enum
    return execute.quick_execute(b"ReadVariableOp", 1, [handle], ("dtype", kind), context.context())[0]


def assign(handle, value) -> None:
    """Put VALUE (an eager tensor of the variable's type) into the variable behind HANDLE."""
    from tensorflow.python.eager import context, execute

    attrs = ("dtype", value.dtype.as_datatype_enum, "validate_shape", False)
    execute.quick_execute(b"AssignVariableOp", 0, [handle, value], attrs, context.context())
