"""The in-graph checks of a compiled step's gradients, and what Python keeps of them per `tf.function`.

Each gradient a traced call returns gets one reduction, the sum of its magnitudes (magnitudes.py), and a call's
sums are added, by one `ResourceScatterAdd`, into the row of a small ring that its step number picks
(`Monitor`); Python reads the ring (at most MAX_GAP calls apart, `FunctionState.due`), decides each step's codes
there, and clears it now and then. On a step of a millisecond every op counts: the codes used to be decided in the
graph (comparisons, selects, the step packed into each code, a scatter of the maximum), 26 ops and 15 constants on
a small MLP's step where the sums and the ring take 17 and 5.
"""
from __future__ import annotations

import numpy as np

from gradtutor.evidence.recording.compiled import direct, magnitudes

# a step's code per gradient. "tiny" is a screen, not a finding: it says that the magnitudes' mean is below TINY
# (true whenever the largest is), and the replay it causes (traced.py) reads the real values
CODES = {1: "tiny", 2: "zeros", 3: "nonfinite"}
# monitors are read after each of a function's first DENSE_READS calls (a short script's symptom is replayed at
# once, from the values its step started with: snapshot.py), then after every calls // 4-th call, at most MAX_GAP
# apart: after a step of a millisecond, a read costs a few tenths of one, and the step a symptom first appeared at
# is exact however late it is read. A monitor whose last read found no step of its trace (a trace the function no
# longer runs) is read only every MAX_GAP calls
DENSE_READS, MAX_GAP = 16, 128
# rows in a monitor's ring: a step's sums go to row step % RING, so the steps between two reads each have their
# own row as long as fewer than RING of them ran; rows are cleared (an eager op, after a step as dear as the read)
# only when the steps of the next reads would reach rows used since the last clear, one read in three. (A
# concrete function called without Python may run more steps than RING between two reads: then a row holds the
# sums of several steps, whose codes are still seen but not the step they began at)
RING = 4 * MAX_GAP


class Monitor:
    """For each gradient one traced `tape.gradient` returned, the sums of its magnitudes per step since the last read
    (`ring`, in the graph; its last column counts the times a step ran the check, 0 for a step that ran another
    trace), and the worst codes read so far (`known`)."""

    __slots__ = ("clean_to", "frame", "growth", "idle", "known", "limits", "ring", "start", "where", "zeros")

    def __init__(self, ring, zeros, where, limits, frame, size, start):
        self.ring, self.zeros, self.where, self.limits, self.frame = ring, zeros, where, limits, frame
        self.known, self.start, self.idle = [0] * size, start, False
        self.growth = Growth()
        self.clean_to = start + RING  # the rows of the steps up to this one hold nothing yet

    @classmethod
    def checking(cls, tf, floats, size, step, frame, start) -> "Monitor":
        """In the graph being traced: the check of one call's gradients (`floats`: (index, gradient) of the floating
        ones), which adds their sums into the ring's row for `step`. `start`: the step count before the first call
        this check can run in."""
        from tensorflow.python.framework import ops

        sums, where, limits = magnitudes.row(tf, floats)
        with ops.init_scope():  # made eagerly, outside every variable creator (a function may not make one)
            ring = variable(tf, [RING, len(where) + 1], "monitor", dtype="float32")
            zeros = tf.zeros([RING, len(where) + 1])
        row = tf.math.floormod(step, RING)  # the step count: an int32 scalar (traced.py), one op
        if row.dtype != tf.int32 or row.shape.rank != 0:
            row = tf.reshape(tf.cast(row, tf.int32), [])
        tf.raw_ops.ResourceScatterAdd(resource=ring.handle, indices=row, updates=sums)
        return cls(ring, zeros, where, limits, frame, size, start)

    def read(self, now: int, shift: int = 0) -> tuple[list[int], list[int]] | None:
        """The worst code of each gradient in the steps since the last read up to step `now`, and the step it first
        reached it at (-1 while fine or when not known); None when no step since then ran this check. `shift`: how
        far the function's calls are ahead of the graph's count (the growth is kept in calls)."""
        rows = value(self.ring, "float32")
        start, self.start = self.start, now
        exact = now - start <= RING
        steps = np.arange(start + 1, now + 1) if exact else np.arange(now - RING + 1, now + 1)
        steps = steps[rows[steps % RING, -1] > 0]  # in order, the steps that ran this check
        if now + 2 * MAX_GAP > self.clean_to or not exact:  # the rows the next reads' steps go to are not all clean
            direct.assign(self.ring.handle, self.zeros)
            self.clean_to = now + RING
        self.idle = not steps.size
        if self.idle:
            return None
        worst, first = [0] * len(self.known), [-1] * len(self.known)
        taken = rows[steps % RING]
        sums = taken[:, :-1] / taken[:, -1:]  # a loop's calls in one step: their mean
        if exact:  # each gradient's mean magnitude: never above its largest, which an eager call keeps
            self.growth.add(steps + shift, sums / (self.limits / magnitudes.TINY))
        if (sums >= self.limits).all() and np.isfinite(sums).all():  # (a NaN compares false)
            return worst, first
        found = step_codes(sums, self.limits)
        peak = found.max(axis=0)
        began = steps[np.argmax(found == peak, axis=0)]
        for column, index in enumerate(self.where):
            worst[index] = int(peak[column])
            if worst[index] and exact:
                first[index] = int(began[column])
        return worst, first


class Growth:
    """How a compiled step's gradients grew before they first turned NaN or inf: the largest of a step's mean
    magnitudes (one per gradient) on the first step read, and the largest of any step read before the first NaN or
    inf, each with its call; `broke`: that first call. An explosion (a learning rate too large, targets not scaled)
    shows here as means that grew a thousandfold and more, then overflowed; a NaN born at one op on a steady step
    does not (reading/unexplained.py)."""

    __slots__ = ("broke", "first", "peak")

    def __init__(self):
        self.first = self.peak = self.broke = None

    def add(self, steps, sums) -> None:
        """The steps of one read, in order, and their means (rows: steps, columns: gradients); read in order. The
        step that broke counts with its finite means (a bias's gradient may still be finite when a kernel's is inf),
        as an eager call's finite values do (observations.Observations.gradients)."""
        if self.broke is not None or not steps.size:
            return
        finite = np.isfinite(sums)
        whole = finite.all(axis=1)
        cut = int(np.argmin(whole)) if not whole.all() else len(steps)
        if cut < len(steps):
            self.broke = int(steps[cut])
        upto = min(cut + 1, len(steps))
        largest = np.where(finite[:upto], sums[:upto], -np.inf).max(axis=1)
        seen = np.flatnonzero(largest > -np.inf)
        if not seen.size:
            return
        if self.first is None:
            self.first = (int(steps[seen[0]]), float(largest[seen[0]]))
        top = int(np.argmax(largest))
        if self.peak is None or largest[top] > self.peak[1]:
            self.peak = (int(steps[top]), float(largest[top]))


def value(variable, dtype: str):
    """A variable's value as a numpy array (direct.py: read by the op itself)."""
    return direct.read(variable.handle, dtype)._numpy()


def step_codes(sums, limits):
    """Codes of each step's sums of magnitudes (rows: steps, columns: gradients): 3 NaN or inf, 2 all zero, 1 perhaps
    tiny (below TINY times the size), 0 fine."""
    codes = np.zeros(sums.shape, np.int8)
    finite = np.isfinite(sums)
    codes[finite & (sums < limits)] = 1  # NaN compares false: only finite sums are below
    codes[sums == 0] = 2
    codes[~finite] = 3
    return codes


class FunctionState:
    """One `tf.function` called from Python: how often, its monitors, and whether its next call runs eagerly."""

    __slots__ = ("calls", "counted", "counter", "handles", "idle_read_at", "monitors", "per_call", "read_at",
                 "reads", "replay_from", "snapshot")

    def __init__(self):
        self.calls = 0
        self.per_call = 0  # the tape calls one call makes (seen when it was traced): counted as checked
        self.monitors: list[Monitor] = []
        self.counter = None  # a variable: the function's calls, as its compiled graphs count them (monitors read it)
        self.counted: set = set()  # id() of the traced graphs given the counter's increment during this call
        self.read_at = self.idle_read_at = 0  # the calls after which the monitors (idle ones too) were last read
        self.replay_from = None  # the step a new symptom first appeared at: the next call runs eagerly
        self.handles: dict = {}  # id -> (handle, dtype) of the captured variables its traces read (snapshot.py)
        self.snapshot = None  # their values before this call, while it is one of the first calls
        self.reads: set = set()  # id() of every eager variable handle its traces read (compiled/unfrozen.py)

    def reading_idle(self, every: bool) -> bool:
        """Are the monitors that found no step at their last read read this time? Every MAX_GAP calls, and at the
        end (`every`)."""
        if every or self.calls - self.idle_read_at >= MAX_GAP:
            self.idle_read_at = self.calls
            return True
        return False

    def first_call(self, steps, counted) -> int:
        """The call at which these gradients first got worse (`steps`: the graph's count then; -1 not known, RING),
        shifted by how far the count is behind the calls (a replayed call runs no graph; a concrete function called
        directly no Python)."""
        return -1 if min(steps) < 0 else min(steps) + self.calls - counted

    def due(self) -> bool:
        """Are the monitors read after this call? Every call at first, then further apart (DENSE_READS, MAX_GAP)."""
        return self.calls <= DENSE_READS or self.calls - self.read_at >= min(MAX_GAP, self.calls // 4)


def variable(tf, shape, name, value=0, dtype="int64"):
    from tensorflow.python.ops import resource_variable_ops

    return resource_variable_ops.ResourceVariable(tf.constant(value, dtype, shape), trainable=False,
                                                  name=f"gradtutor_{name}")


def is_float(tensor) -> bool:
    dtype = getattr(getattr(tensor, "values", tensor), "dtype", None)  # IndexedSlices: its values
    return dtype is not None and (dtype.is_floating or dtype.is_complex)
