"""A gradient's symptom and largest finite magnitude, read in one pass, against their definitions element by element.

No TensorFlow: values are numpy arrays drawn from a fresh seed (float16/32/64 and complex), with NaN, inf, zeros
and values below TINY put in at drawn places.
"""
from __future__ import annotations

import numpy as np
import pytest

from gradtutor.evidence.symptoms import TINY, symptom_and_peak
from gradtutor.protocol import Symptom

pytestmark = pytest.mark.unit


def _defined(value):
    """The definitions, element by element: any element not finite; every element 0; every magnitude below TINY."""
    magnitudes = [abs(complex(v)) for v in value.ravel()]
    finite = [m for m in magnitudes if np.isfinite(m)]
    peak = max(finite) if finite else None
    if len(finite) < len(magnitudes):
        return Symptom.NONFINITE, peak
    return (Symptom.ZEROS if peak == 0 else Symptom.TINY if peak < TINY else None), peak


@pytest.mark.parametrize("seed", list(np.random.SeedSequence().generate_state(4)))
def test_one_pass_says_what_the_elements_say(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        size = int(rng.integers(1, 40))
        dtype = rng.choice(["float16", "float32", "float64", "complex64"])
        value = rng.normal(size=size) * 10.0 ** rng.uniform(-9, 4)
        if dtype == "complex64":
            value = value + 1j * rng.normal(size=size)
        for kind in rng.choice(["nan", "inf", "-inf", "zero", "tiny", "none"], size=int(rng.integers(0, 4))):
            at = rng.integers(size, size=int(rng.integers(1, size + 1)))
            value[at] = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, "zero": 0.0, "tiny": TINY / 3, "none": value[at]}[kind]
        if rng.random() < 0.2:
            value = np.zeros(size)
        value = value.astype(dtype)
        symptom, peak = symptom_and_peak(value)
        want_symptom, want_peak = _defined(value)
        assert symptom == want_symptom, (value, symptom, want_symptom)
        assert (peak is None) == (want_peak is None) and (peak is None or np.isclose(peak, want_peak, rtol=1e-6)), value


def test_nothing_to_read_is_no_symptom():
    assert symptom_and_peak(None) == (None, None)
    assert symptom_and_peak(np.zeros(0, "float32")) == (None, None)
    assert symptom_and_peak(np.array([1, 0, 2])) == (None, None)  # integers: no gradient to judge
