"""What the values an op kept say about a NaN its gradient can make (gradtutor.evidence.reading.values).

No TensorFlow: an op is its type and (inputs, outputs), each anything with `_numpy()`; the values are drawn.
"""
from __future__ import annotations

import types

import numpy as np
import pytest

from gradtutor.evidence.reading.values import evidence_at
from gradtutor.protocol import Cause

pytestmark = pytest.mark.unit

SEEDS = range(6)


class Kept:
    def __init__(self, value):
        self.value = np.asarray(value)

    def _numpy(self):
        return self.value


def _op(op_type, inputs, output):
    return types.SimpleNamespace(type=op_type, values=(tuple(map(Kept, inputs)), (Kept(output),)))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_power_of_a_zero_base_is_nan_prone_only_below_an_exponent_of_one(seed):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.5, 2.0, size=int(rng.integers(2, 8))).astype("float32")
    base[int(rng.integers(0, base.size))] = 0.0
    below = np.float32(rng.uniform(0.05, 0.95))  # a root: its slope at 0 is inf
    above = np.float32(rng.uniform(1.0, 4.0))  # a square and up: its slope at 0 is finite
    assert evidence_at(_op("Pow", [base, below], base ** below)) == Cause.NON_FINITE
    assert evidence_at(_op("Pow", [base, above], base ** above)) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_the_angle_of_zero_is_nan_prone_and_of_anything_else_is_not(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 8))
    z = (rng.uniform(0.5, 2.0, size) + 1j * rng.uniform(0.5, 2.0, size)).astype("complex64")
    assert evidence_at(_op("Angle", [z], np.angle(z))) is None
    z[int(rng.integers(0, size))] = 0
    assert evidence_at(_op("Angle", [z], np.angle(z))) == Cause.NON_FINITE
