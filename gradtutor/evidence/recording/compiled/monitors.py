"""The in-graph checks of a compiled step's gradients, and what Python keeps of them per `tf.function`.

Each gradient a traced call returns gets a couple of reductions whose worst code is kept in a small variable
(`Monitor`); `FunctionState` counts a function's calls and says when its monitors are read (traced.py).
"""
from __future__ import annotations

from gradtutor.evidence.symptoms import TINY  # the same threshold, checked inside the graph

CODES = {1: "tiny", 2: "zeros", 3: "nonfinite"}  # a monitor's worst code per gradient
# monitors are read after each of a function's first DENSE_READS calls (a short script's symptom is replayed at
# once), then after every calls // 16-th call, at most MAX_GAP apart (a read costs ~50 µs, a small step ~1 ms)
DENSE_READS, MAX_GAP = 32, 32


class Monitor:
    """For each gradient one traced `tape.gradient` returned: the worst symptom code seen so far (`codes`, in the
    graph; `known`, as last read) and the step it first reached it at (`steps`, in the graph)."""

    __slots__ = ("codes", "frame", "known", "steps")

    def __init__(self, codes, steps, frame, size):
        self.codes, self.steps, self.frame, self.known = codes, steps, frame, [0] * size

    @classmethod
    def checking(cls, tf, floats, size, step, frame) -> "Monitor":
        """In the graph being traced: the checks of one call's gradients (`floats`: (index, gradient) of the
        floating ones), which keep each gradient's worst code and the `step` it first reached it at."""
        from tensorflow.python.framework import ops

        with ops.init_scope():  # made eagerly, outside every variable creator (a function may not make one)
            codes_kept, steps_kept = (variable(tf, [size], name) for name in ("monitor", "monitor_steps"))
        found = codes(tf, floats, size)
        old = codes_kept.read_value()
        codes_kept.assign(tf.maximum(old, found))
        steps_kept.assign(tf.where(found > old, step, steps_kept.read_value()))
        return cls(codes_kept, steps_kept, frame, size)


class FunctionState:
    """One `tf.function` called from Python: how often, its monitors, and whether its next call runs eagerly."""

    __slots__ = ("calls", "counted", "counter", "monitors", "per_call", "read_at", "replay_from")

    def __init__(self):
        self.calls = 0
        self.per_call = 0  # the tape calls one call makes (seen when it was traced): counted as checked
        self.monitors: list[Monitor] = []
        self.counter = None  # a variable: the function's calls, as its compiled graphs count them (monitors read it)
        self.counted: set = set()  # id() of the traced graphs given the counter's increment during this call
        self.read_at = 0  # the call after which the monitors were last read
        self.replay_from = None  # the step a new symptom first appeared at: the next call runs eagerly

    def due(self) -> bool:
        """Are the monitors read after this call? Every call at first, then further apart (DENSE_READS, MAX_GAP)."""
        return self.calls - self.read_at >= min(MAX_GAP, max(1, self.calls // (DENSE_READS // 2)))


def codes(tf, floats, size):
    """One code per gradient: 0 fine, 1 tiny, 2 all zero, 3 NaN or inf (an empty gradient is fine). Per gradient a sum
    (NaN and inf reach it on every backend; XLA's max drops a NaN) and its largest magnitude; then one comparison of
    them all, so that a step of many gradients pays two reductions each and a few ops in all."""
    totals, largest, where = [], [], []
    for index, gradient in floats:
        values = getattr(gradient, "values", gradient)  # IndexedSlices: its rows
        if values.dtype.is_complex:  # a complex gradient's magnitudes: NaN and inf stay, zeros stay zeros
            values = tf.abs(values)
        elements = values.shape.num_elements()
        if elements == 0:
            continue
        top = tf.cast(tf.reduce_max(tf.abs(values)), tf.float32)
        if elements is None:  # the largest of nothing is -inf: a gradient whose size is known only when run
            top = tf.where(tf.size(values) > 0, top, 1.0)
        totals.append(tf.cast(tf.reduce_sum(values), tf.float32))
        largest.append(top)
        where.append(index)
    if not where:
        return tf.zeros([size], tf.int32)
    totals, largest = tf.stack(totals), tf.stack(largest)
    codes = tf.where(tf.math.is_finite(totals), tf.where(largest == 0, 2, tf.where(largest < TINY, 1, 0)), 3)
    if where == list(range(size)):
        return codes
    return tf.scatter_nd([[index] for index in where], codes, [size])


def variable(tf, shape, name, value=0):
    from tensorflow.python.ops import resource_variable_ops

    return resource_variable_ops.ResourceVariable(tf.constant(value, tf.int32, shape), trainable=False,
                                                  name=f"gradtutor_{name}")


def is_float(tensor) -> bool:
    dtype = getattr(getattr(tensor, "values", tensor), "dtype", None)  # IndexedSlices: its values
    return dtype is not None and (dtype.is_floating or dtype.is_complex)
