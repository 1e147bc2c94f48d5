"""What the values an op kept say about a NaN its gradient can make (gradtutor.evidence.reading.values).

No TensorFlow: an op is its type and (inputs, outputs), each anything with `_numpy()`; the values are drawn.
"""
from __future__ import annotations

import types

import numpy as np
import pytest

from gradtutor.evidence.reading.values import evidence_at, how_made
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


@pytest.mark.parametrize("seed", SEEDS)
def test_atan2_is_nan_prone_only_where_both_its_inputs_are_zero(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 8))
    y, x = (rng.uniform(-2.0, 2.0, size).astype("float32") for _ in range(2))
    at = int(rng.integers(0, size))
    y[at] = 0.0  # one input at 0 alone: atan2's slope y/(x² + y²) is finite there
    assert evidence_at(_op("Atan2", [y, x], np.arctan2(y, x))) is None
    x[at] = 0.0
    op = _op("Atan2", [y, x], np.arctan2(y, x))
    assert evidence_at(op) == Cause.NON_FINITE and how_made(op) == "zero"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("op_type, numpy", [("Acos", np.arccos), ("Asin", np.arcsin), ("Atanh", np.arctanh)])
def test_acos_asin_and_atanh_are_nan_prone_at_plus_or_minus_one_and_nowhere_inside(seed, op_type, numpy):
    """The cosine of the angle between two equal unit vectors is 1: acos is 0 there, its slope infinite."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 8))
    inside = rng.uniform(-0.99, 0.99, size).astype("float32")
    with np.errstate(all="ignore"):
        assert evidence_at(_op(op_type, [inside], numpy(inside))) is None
        inside[int(rng.integers(0, size))] = rng.choice([-1.0, 1.0])
        op = _op(op_type, [inside], numpy(inside))
    assert evidence_at(op) == Cause.NON_FINITE and how_made(op) == "edge"


@pytest.mark.parametrize("seed", SEEDS)
def test_each_way_of_making_a_nan_or_inf_is_told_apart(seed):
    """An exp that overflowed, a sqrt of a negative number, a log at 0, and an op handed a NaN it passed on."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 8))
    with np.errstate(all="ignore"):
        large = rng.uniform(-3.0, 3.0, size).astype("float32")
        large[int(rng.integers(0, size))] = np.float32(rng.uniform(89.0, 300.0))  # exp above ~88.7 is inf in float32
        exp = _op("Exp", [large], np.exp(large))
        negative = rng.uniform(0.5, 3.0, size).astype("float32")
        negative[int(rng.integers(0, size))] *= -1
        sqrt = _op("Sqrt", [negative], np.sqrt(negative))
        zero = rng.uniform(0.5, 3.0, size).astype("float32")
        zero[int(rng.integers(0, size))] = 0.0
        log = _op("Log", [zero], np.log(zero))
        given = zero.copy()
        given[int(rng.integers(0, size))] = np.nan
        passed = _op("Exp", [given], np.exp(given))
    assert [evidence_at(op) for op in (exp, sqrt, log, passed)] == [Cause.NON_FINITE] * 4
    assert [how_made(op) for op in (exp, sqrt, log, passed)] == ["overflow", "domain", "zero", None]
