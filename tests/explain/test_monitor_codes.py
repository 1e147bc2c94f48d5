"""The in-graph check of a compiled step's gradients (monitors.py) against the values themselves.

Gradients are drawn (shapes, dtypes, and which of them are all zero, hold a NaN or an inf, are tiny or are
fine); the codes one traced call keeps must be what `gradient_symptom` says of each gradient's values,
except that "tiny" is a screen: said when the magnitudes' mean is below TINY, as it is whenever the largest
magnitude is. The step each worst code was first seen at is read back from the monitor's ring of per-step sums,
with other traces' steps, loops inside a step, late reads and the ring's wrapping drawn too.
"""
from __future__ import annotations

import numpy as np
import pytest

import gradtutor.quiet  # noqa: F401 - before TensorFlow: its start-up noise stays out of the output
import tensorflow as tf
from gradtutor.evidence.recording.compiled import monitors
from gradtutor.evidence.symptoms import TINY, gradient_symptom

pytestmark = pytest.mark.tf
TRUE = {None: 0, "tiny": 1, "zeros": 2, "nonfinite": 3}
KINDS = ("fine", "zeros", "nan", "inf", "tiny", "mixed_small")


def _gradient(rng, kind, dtype, shape):
    value = rng.normal(size=shape) * 10.0 ** rng.uniform(-3, 3)
    if kind == "zeros":
        value = np.zeros(shape)
    elif kind in ("nan", "inf"):
        value.flat[int(rng.integers(value.size))] = np.nan if kind == "nan" else -np.inf
    elif kind == "tiny":
        value = rng.uniform(-1, 1, size=shape) * TINY * 0.9
    elif kind == "mixed_small":  # one element above TINY among many tiny ones: not tiny, whatever the mean says
        value = rng.uniform(-1, 1, size=shape) * TINY * 1e-3
        value.flat[0] = TINY * 2
    if dtype == "float16" and kind in ("tiny", "mixed_small"):  # below float16's range: zeros, as a float16 gradient
        value = np.zeros(shape)
    return tf.constant(value.astype(dtype))


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(3)))
def test_the_codes_a_compiled_step_keeps_are_what_the_values_show(seed):
    rng = np.random.default_rng(seed)
    steps = int(rng.integers(2, 6))
    # one trace: each gradient keeps its shape and dtype from step to step, and what its values are changes
    shapes = [tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 3)))) for _ in range(4)]
    dtypes = rng.choice(["float32", "float64", "float16"], size=4)
    drawn = [rng.choice(KINDS, size=4) for _ in range(steps)]
    gradients = [[_gradient(rng, kind, dtype, shape) for kind, dtype, shape in zip(kinds, dtypes, shapes)]
                 for kinds in drawn]
    step_number = tf.Variable(0, dtype=tf.int64)
    kept = {}

    @tf.function
    def check(*values):
        monitor = monitors.Monitor.checking(tf, list(enumerate(values)), len(values), step_number.read_value(), None,
                                            start=-1)
        kept.setdefault("monitor", monitor)
        return tf.constant(0)

    expected_worst, expected_first = [0] * 4, [-1] * 4
    for number, values in enumerate(gradients):
        step_number.assign(number)
        check(*values)
        for index, value in enumerate(values):
            said = gradient_symptom(value.numpy())
            code = TRUE[said.value if said else None]
            if code == 0 and np.abs(value.numpy().astype("float64")).mean() < TINY:
                code = 1  # the screen: the mean of the magnitudes is below TINY (the replay reads the values)
            if code > expected_worst[index]:
                expected_worst[index], expected_first[index] = code, number
    worst, first = kept["monitor"].read(steps - 1)
    assert (worst, first) == (expected_worst, expected_first), drawn
    assert kept["monitor"].read(steps - 1) is None  # read: nothing since


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(2)))
def test_steps_between_reads_are_each_seen_and_a_step_of_another_trace_is_not_read_as_zeros(seed):
    """Two traces of one function share its step count: a step that ran the other trace leaves this trace's row
    empty, which is not a zero gradient. A gradient asked for in a loop adds up over the loop's calls. Read late
    (more steps than the ring has rows), the codes are still seen, and the step they began at is not said."""
    rng = np.random.default_rng(seed)
    step_number = tf.Variable(0, dtype=tf.int64)
    kept = {}

    @tf.function
    def check(value, repeats):
        for _ in tf.range(repeats):
            monitor = monitors.Monitor.checking(tf, [(0, value)], 1, step_number.read_value(), None, start=0)
            kept.setdefault(value.dtype.name, monitor)
        return tf.constant(0)

    total = int(rng.integers(3, monitors.RING))
    bad = int(rng.integers(1, total + 1))
    kind = rng.choice(["zeros", "nan"])
    for step in range(1, total + 1):
        step_number.assign(step)
        other = bool(rng.integers(2)) and step != bad  # this step runs the float64 trace, not the float32 one
        value = np.zeros(3) if step == bad and kind == "zeros" else rng.normal(size=3) + 2.0
        if step == bad and kind == "nan":
            value[int(rng.integers(3))] = np.nan
        check(tf.constant(value, "float64" if other else "float32"), tf.constant(int(rng.integers(1, 4))))
    code = 2 if kind == "zeros" else 3
    assert kept["float32"].read(total) == ([code], [bad])
    assert kept["float32"].read(total) is None
    late = total + monitors.RING + int(rng.integers(1, monitors.RING))
    nan_at = int(rng.integers(total + 1, late + 1))
    for step in range(total + 1, late + 1):
        step_number.assign(step)
        value = np.full(3, np.nan) if step == nan_at else rng.normal(size=3) + 2.0
        check(tf.constant(value, "float32"), tf.constant(1))
    assert kept["float32"].read(late) == ([3], [-1])


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(2)))
def test_reads_apart_by_at_most_the_gap_each_see_their_own_steps_however_often_the_ring_wraps(seed):
    """Reads at most MAX_GAP steps apart over several turns of the ring (rows are cleared only now and then): each
    read says the worst code of the steps since the one before, and the first step that reached it."""
    rng = np.random.default_rng(seed)
    step_number = tf.Variable(0, dtype=tf.int32)
    kept = {}

    @tf.function
    def check(value):
        kept.setdefault("monitor", monitors.Monitor.checking(tf, [(0, value)], 1, step_number.read_value(), None,
                                                             start=0))
        return tf.constant(0)

    total = 3 * monitors.RING
    bad = {int(step): str(rng.choice(["zeros", "nan", "inf"])) for step in rng.choice(total, size=12) + 1}
    reads = np.cumsum(rng.integers(1, monitors.MAX_GAP + 1, size=total))
    reads = [int(read) for read in reads if read <= total]
    last = 0
    for step in range(1, total + 1):
        step_number.assign(step)
        value = rng.normal(size=4) + 3.0
        if bad.get(step) == "zeros":
            value = np.zeros(4)
        elif bad.get(step):
            value[int(rng.integers(4))] = np.nan if bad[step] == "nan" else np.inf
        check(tf.constant(value, "float32"))
        if step in reads:
            window = [(2 if bad[s] == "zeros" else 3, s) for s in range(last + 1, step + 1) if s in bad]
            worst = max((code for code, _ in window), default=0)
            first = min((s for code, s in window if code == worst), default=-1) if worst else -1
            assert kept["monitor"].read(step) == ([worst], [first]), (last, step, window)
            last = step
