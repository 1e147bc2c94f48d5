"""The in-graph checks of a compiled step's gradients, and what Python keeps of them per `tf.function`.

Each gradient a traced call returns gets one reduction, the sum of its magnitudes (`codes`), and a call's codes
go, with the step they were seen at, into one small variable by one `ResourceScatterMax` (`Monitor`);
`FunctionState` counts a function's calls and says when its monitors are read (traced.py). On a step of a
millisecond every op counts: a gradient used to cost five ops and a monitor seven, where now they cost two
(three for a half-precision gradient) and five.
"""
from __future__ import annotations

from gradtutor.evidence.symptoms import TINY  # the same threshold, checked inside the graph

# a monitor's worst code per gradient. "tiny" is a screen, not a finding: it says that the magnitudes' mean is below
# TINY (true whenever the largest is), and the replay it causes (traced.py) reads the real values
CODES = {1: "tiny", 2: "zeros", 3: "nonfinite"}
# monitors are read after each of a function's first DENSE_READS calls (a short script's symptom is replayed at
# once), then after every calls // 16-th call, at most MAX_GAP apart (a read costs ~50 µs, a small step ~1 ms)
DENSE_READS, MAX_GAP = 32, 32
# a code and the step it was seen at, kept as one number: code * (SPAN - step). A larger code always makes a larger
# key (steps stay below 2**31, SPAN is far above 3 * 2**31), and of two keys with one code the earlier step's is the
# larger, so the running maximum keeps each gradient's worst code and the first step it reached it at
SPAN = 1 << 40
HALF = ("float16", "bfloat16")  # summed as float32: their own sum overflows at 65504 (bfloat16 rounds it away)


class Monitor:
    """For each gradient one traced `tape.gradient` returned: the worst symptom code seen so far and the step it first
    reached it at (`keys`, in the graph), and the codes as last read (`known`)."""

    __slots__ = ("frame", "keys", "known")

    def __init__(self, keys, frame, size):
        self.keys, self.frame, self.known = keys, frame, [0] * size

    @classmethod
    def checking(cls, tf, floats, size, step, frame) -> "Monitor":
        """In the graph being traced: the checks of one call's gradients (`floats`: (index, gradient) of the
        floating ones), which keep each gradient's worst code and the `step` it first reached it at."""
        from tensorflow.python.framework import ops

        with ops.init_scope():  # made eagerly, outside every variable creator (a function may not make one)
            keys = variable(tf, [size], "monitor")
        found, where = codes(tf, floats)
        if where:
            update = tf.cast(found, tf.int64) * (SPAN - tf.cast(step, tf.int64))
            tf.raw_ops.ResourceScatterMax(resource=keys.handle, indices=tf.constant(where, tf.int32), updates=update)
        return cls(keys, frame, size)

    def read(self) -> tuple[list[int], list[int]]:
        """The worst code of each gradient so far, and the step it first reached it at (-1 while fine)."""
        worst, first = [], []
        for key in self.keys.numpy().tolist():
            code = round(key / SPAN)
            worst.append(code)
            first.append(SPAN - key // code if code else -1)
        return worst, first


class FunctionState:
    """One `tf.function` called from Python: how often, its monitors, and whether its next call runs eagerly."""

    __slots__ = ("calls", "counted", "counter", "handles", "monitors", "per_call", "read_at", "replay_from", "snapshot")

    def __init__(self):
        self.calls = 0
        self.per_call = 0  # the tape calls one call makes (seen when it was traced): counted as checked
        self.monitors: list[Monitor] = []
        self.counter = None  # a variable: the function's calls, as its compiled graphs count them (monitors read it)
        self.counted: set = set()  # id() of the traced graphs given the counter's increment during this call
        self.read_at = 0  # the call after which the monitors were last read
        self.replay_from = None  # the step a new symptom first appeared at: the next call runs eagerly
        self.handles: dict = {}  # id -> (handle, dtype) of the captured variables its traces read (snapshot.py)
        self.snapshot = None  # their values before this call, while it is one of the first calls

    def due(self) -> bool:
        """Are the monitors read after this call? Every call at first, then further apart (DENSE_READS, MAX_GAP)."""
        return self.calls - self.read_at >= min(MAX_GAP, max(1, self.calls // (DENSE_READS // 2)))


def codes(tf, floats):
    """One code per floating gradient: 0 fine, 1 perhaps tiny, 2 all zero, 3 NaN or inf, and the gradients' indices
    (an empty gradient is fine, and left out). One reduction each: the sum of the magnitudes is NaN or inf when an
    element is (on every backend: XLA's max drops a NaN), 0 exactly when every element is, and below TINY times the
    size when the largest magnitude is below TINY."""
    sums, limits, where = [], [], []
    for index, gradient in floats:
        values = getattr(gradient, "values", gradient)  # IndexedSlices: its rows
        elements = values.shape.num_elements()
        if elements == 0:
            continue
        if values.dtype.name in HALF:
            values = tf.cast(values, tf.float32)
        total = tf.reduce_sum(tf.abs(values))  # a complex gradient: its moduli (NaN and inf stay, zeros stay zeros)
        if total.dtype != tf.float32:
            total = tf.cast(total, tf.float32)
        if elements is None:  # a size known only when run; the sum of nothing is 0, and nothing is fine
            size = tf.cast(tf.size(values), tf.float32)
            total, elements = tf.where(size > 0, total, 1.0), size
        sums.append(total)
        limits.append(TINY * elements)
        where.append(index)
    if not where:
        return None, where
    known = all(isinstance(limit, float) for limit in limits)
    total, limit = tf.stack(sums), tf.constant(limits, tf.float32) if known else tf.stack(limits)
    return tf.where(tf.math.is_finite(total), tf.where(total == 0, 2, tf.where(total < limit, 1, 0)), 3), where


def variable(tf, shape, name, value=0, dtype="int64"):
    from tensorflow.python.ops import resource_variable_ops

    return resource_variable_ops.ResourceVariable(tf.constant(value, dtype, shape), trainable=False,
                                                  name=f"gradtutor_{name}")


def is_float(tensor) -> bool:
    dtype = getattr(getattr(tensor, "values", tensor), "dtype", None)  # IndexedSlices: its values
    return dtype is not None and (dtype.is_floating or dtype.is_complex)
