"""The variables a compiled step reads, as they were before each of its first calls: so that the very step whose
gradients first went NaN, zero or tiny can be run again eagerly from the values it started with.

A compiled step's gradients are checked in the graph (monitors.py), but the ops that made a NaN are only seen by
running the step again eagerly. Run at the next call, the step starts from weights the bad step's update already
made NaN, and the first op fed a NaN weight looks guilty. So, for a function's first monitors.DENSE_READS calls
(when its monitors are read after every call), the values of every variable it reads are kept from before the call
(a read shares the buffer; the update copies it), and a call whose check got worse is run once more at once: the
kept values put back, the step run eagerly under the recording, and the values the real call left put back after.
Taken only when the call's arguments are values (tensors, arrays, numbers) and its graph has no effect beyond its
variables (EFFECTS): a dataset's iterator would give the replay another batch and take it from the user's program,
a tf.print would print twice. What the replay's Python prints is not shown.
"""
from __future__ import annotations

import numbers

import numpy as np

from gradtutor.evidence.recording.compiled import direct


class Snapshot:
    """Variable handles (by id) and the value each held before the call."""

    __slots__ = ("values",)

    def __init__(self):
        self.values: dict[int, tuple] = {}

    def add(self, handle, dtype) -> None:
        """Keep HANDLE's value now (a handle met while the call is traced: read before the step runs). A variable the
        first call makes has no value while that call is traced (TensorFlow lifts its initializer out and runs it
        after the trace, then traces again to run the step): read empty then, it is read again on the second trace."""
        if self.unread(handle):
            from tensorflow.python.framework import ops

            with ops.init_scope():
                self.values[id(handle)] = (handle, direct.read(handle, dtype))

    def unread(self, handle) -> bool:
        """Is HANDLE's value not kept yet, or kept empty (read before its initializer ran)?"""
        kept = self.values.get(id(handle))
        return kept is None or kept[1].shape.num_elements() == 0


# ops whose effects a second run repeats outside the variables it puts back: a batch taken from an iterator, a line
# printed or a summary written, a Python function run, a table or queue changed, a file saved. A function that traces
# one is not run twice (its next call is replayed instead, as after its first calls)
EFFECTS = ("Iterator", "Print", "Summary", "PyFunc", "Lookup", "Queue", "Save", "WriteFile", "Stack", "Barrier")


def has_effects(op_type: str) -> bool:
    return any(part in op_type for part in EFFECTS)


def take(handles: dict) -> Snapshot:
    """The values of HANDLES ({id: (handle, dtype)}) now."""
    from tensorflow.python.framework import ops

    snapshot = Snapshot()
    with ops.init_scope():  # eagerly, and in one scope: a step of a small model reads a few dozen variables
        for key, (handle, dtype) in handles.items():
            snapshot.values[key] = (handle, direct.read(handle, dtype))
    return snapshot


def put_back(snapshot: Snapshot, shaped_as: Snapshot | None = None) -> None:
    """Assign each kept value back. With `shaped_as` (the values the call left), a value of another shape is not: a
    variable the call itself made (an optimizer's slot, a layer built by its first call) had none before it, only
    a placeholder read while it was traced, so it keeps what the call left."""
    from tensorflow.python.ops import gen_resource_variable_ops

    for key, (handle, value) in snapshot.values.items():
        if shaped_as is not None and (key not in shaped_as.values or shaped_as.values[key][1].shape != value.shape):
            continue
        gen_resource_variable_ops.assign_variable_op(handle, value)


def replayable(args, kwargs) -> bool:
    """Are the call's arguments values that a second run reads the same (not an iterator, a dataset, a generator)?
    A Keras model or layer, or a tf.Module, given as an argument (GradCAM's `fn(model, images, ...)`) is read the
    same: what it holds that a step changes is its variables, which the replay puts back."""
    import tensorflow as tf
    from tensorflow.python.trackable.autotrackable import AutoTrackable

    for value in tf.nest.flatten((args, kwargs)):
        if not (value is None or tf.is_tensor(value) or isinstance(value, (np.ndarray, np.generic, numbers.Number,
                                                                            str, bytes, AutoTrackable))):
            return False
    return True
