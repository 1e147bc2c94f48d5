"""The in-graph check of a compiled step's gradients (monitors.py) against the values themselves.

Gradients are drawn (shapes, dtypes, and which of them are all zero, hold a NaN or an inf, are tiny or are
fine); the codes one traced call keeps must be what `gradient_symptom` says of each gradient's values,
except that "tiny" is a screen: said when the magnitudes' mean is below TINY, as it is whenever the largest
magnitude is. The step each worst code was first seen at is read back from
the one number a monitor keeps per gradient.
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
        monitor = monitors.Monitor.checking(tf, list(enumerate(values)), len(values), step_number.read_value(), None)
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
    worst, first = kept["monitor"].read()
    assert (worst, first) == (expected_worst, expected_first), drawn
