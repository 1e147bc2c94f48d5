"""Does the comparison check None → type → shape → dtype → non-finite → values, in that order?"""
from __future__ import annotations

import secrets

import numpy as np
import pytest

from gradtutor.checking.compare import compare, relation
from gradtutor.checking.factors import RowReading, row_reading

pytestmark = pytest.mark.unit

REF = {"type": "Tensor", "dtype": "float32", "shape": [3], "key": "r"}
REF_ARRAYS = {"r": np.array([1.0, 2.0, 3.0], np.float32)}


def _tensor(values, dtype="float32"):
    array = np.asarray(values, dtype=dtype)
    return {"type": "Tensor", "dtype": dtype, "shape": list(array.shape), "key": "l"}, {"l": array}


def _one(learner, arrays=None, rtol=1e-5, atol=1e-6):
    return compare(REF, REF_ARRAYS, learner, arrays or {}, 0, rtol, atol)[0]


def test_does_a_match_pass_with_exact_and_allclose():
    report = _one(*_tensor([1, 2, 3]))
    assert report.passed and report.exact and report.allclose and report.max_abs_diff == 0


def test_is_none_first():
    assert _one({"type": "None"}).symptom == "none"


def test_is_a_numpy_array_a_type_failure_even_with_right_values():
    learner, arrays = _tensor([1, 2, 3])
    learner["type"] = "ndarray"
    report = _one(learner, arrays)
    assert report.symptom == "type" and report.learner_type == "ndarray" and "a numpy array" in report.detail


def test_does_shape_come_before_values_so_broadcasting_cannot_pass():
    assert _one(*_tensor(2.0)).symptom == "shape"  # np.allclose([1,2,3], 2.0) would not catch this
    assert _one(*_tensor([[1, 2, 3]])).symptom == "shape"


def test_is_dtype_checked():
    assert _one(*_tensor([1, 2, 3], "float64")).symptom == "dtype"


def test_are_nan_and_inf_their_own_symptom():
    assert _one(*_tensor([1, np.nan, 3])).symptom == "nonfinite"
    assert _one(*_tensor([np.inf, 2, 3])).symptom == "nonfinite"


def test_are_round_off_zeros_told_apart_from_wrong_values():
    zero = _one(*_tensor([3e-9, 0, -1e-9]))
    assert zero.symptom == "zeros"
    wrong = _one(*_tensor([1, 2, 4]))
    assert wrong.symptom == "values" and wrong.worst_index == (2,) and wrong.max_abs_diff == 1.0
    assert wrong.learner_at_worst == 4 and wrong.reference_at_worst == 3


def test_is_tolerance_respected():
    assert _one(*_tensor([1, 2, 3.00001]), rtol=1e-4).passed
    assert not _one(*_tensor([1, 2, 3.01]), rtol=1e-4).passed


def test_are_tuples_compared_element_by_element():
    reference = {"type": "tuple", "length": 2, "items": [REF, REF]}
    good, arrays = _tensor([1, 2, 3])
    reports = compare(reference, REF_ARRAYS, {"type": "list", "length": 2, "items": [good, {"type": "None"}]},
                      arrays, 0, 1e-5, 1e-6)
    assert [r.symptom for r in reports] == [None, "none"] and reports[1].element == 1
    short = compare(reference, REF_ARRAYS, {"type": "tuple", "length": 1, "items": [good]}, arrays, 0, 1e-5, 1e-6)
    assert short[0].symptom == "type" and "expected a tuple of 2" in short[0].detail
    single = compare(reference, REF_ARRAYS, good, arrays, 0, 1e-5, 1e-6)
    assert single[0].symptom == "type"


def test_is_an_unknown_object_a_type_failure():
    report = _one({"type": "other", "name": "builtins.AlwaysEqual"})
    assert report.symptom == "type" and report.learner_type == "other" and "AlwaysEqual" in report.detail


@pytest.mark.parametrize("actual, pattern, factor", [
    (lambda e: e / 4, "scale", "1/4"),
    (lambda e: 3 * e, "scale", "3"),
    (lambda e: -e, "sign", "-1"),
    (lambda e: e.T, "transposed", None),
    (lambda e: np.where(np.arange(e.size).reshape(e.shape) < 2, 0.0, e), "partial", "2/9"),
])
def test_is_an_exact_relation_to_the_reference_named(actual, pattern, factor):
    expected = np.arange(1.0, 10.0, dtype=np.float32).reshape(3, 3) * np.array([1, -2, 3], dtype=np.float32)
    found = relation(actual(expected).astype(np.float32), expected, 1e-5, 1e-6)
    assert (found.pattern, found.factor) == (pattern, factor)
    assert found.zero_there == (pattern == "partial")  # the two wrong entries of the partial case are zero


def test_is_a_transposed_non_square_result_named_in_the_shape_report():
    expected = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    ref = {"type": "Tensor", "dtype": "float32", "shape": [2, 3], "key": "r"}
    got = {"type": "Tensor", "dtype": "float32", "shape": [3, 2], "key": "g"}
    report = compare(ref, {"r": expected}, got, {"g": expected.T.copy()}, 0, 1e-5, 1e-6)[0]
    assert report.symptom == "shape" and report.pattern == "transposed"


# --------------------------------------------------------------------------- factors of each row's own
# Drawn shapes and factors: each test draws its own seed, printed (shown on a failure) so it can be replayed.
DRAWS = 12


@pytest.fixture
def rng():
    seed = secrets.randbits(32)
    print(f"drawn seed: {seed} (np.random.default_rng({seed}))")
    return np.random.default_rng(seed)


def _rows(rng) -> np.ndarray:
    """A reference gradient of 2-6 rows (first axis), each of 2 entries or more, some with a third axis."""
    shape = (int(rng.integers(2, 7)), int(rng.integers(2, 8))) + ((int(rng.integers(2, 4)),) if rng.random() < 0.3 else ())
    return rng.normal(size=shape).astype(np.float32)


def _counts(rng, rows: int) -> np.ndarray:
    """A whole count per row, not all the same (a ragged mask's rows; one row is as ragged as it gets)."""
    if rows < 2:
        return rng.integers(1, 10, size=rows)
    while True:
        counts = rng.integers(1, 10, size=rows)
        if len(set(counts.tolist())) > 1:
            return counts


def _apart(draw) -> np.ndarray:
    """Factors drawn until they differ by 5% or more: closer ones are one factor within the comparison's tolerance."""
    while True:
        factors = draw()
        if factors.max() > 1.05 * factors.min():
            return factors


def _per_row(values: np.ndarray, factors: np.ndarray) -> np.ndarray:
    return (values * factors.reshape((-1,) + (1,) * (values.ndim - 1))).astype(np.float32)


def test_is_a_mean_over_each_rows_own_count_a_row_scale_read_as_those_counts(rng):
    for _ in range(DRAWS):
        expected = _rows(rng)
        counts = _counts(rng, expected.shape[0])
        found = relation(_per_row(expected, 1.0 / counts), expected, 1e-5, 1e-6)
        assert (found.pattern, found.factor) == ("row_scale", "mean"), (expected.shape, counts, found)
        assert np.allclose(found.row_factors, 1.0 / counts, rtol=1e-4)
        assert row_reading(found.row_factors) == RowReading("mean", tuple(counts.tolist()))
        summed = relation(_per_row(expected, counts.astype(np.float32)), expected, 1e-5, 1e-6)
        assert summed.pattern == "row_scale" and row_reading(summed.row_factors) == RowReading("sum", tuple(counts.tolist()))


def test_is_a_per_example_mean_over_a_ragged_mask_read_as_each_rows_count_up_to_one_factor(rng):
    for _ in range(DRAWS):
        expected = _rows(rng)
        if expected.shape[0] < 4:  # fewer rows' ratios are near fractions by chance: a shared reading needs four
            continue
        counts = _counts(rng, expected.shape[0])
        proportions = tuple((counts // np.gcd.reduce(counts)).tolist())
        # the mean of each example's own mean, where the mean over every unmasked entry is asked
        inverse = np.lcm.reduce(counts) // counts  # 1/count_i in whole-number proportions
        readings = {proportions, tuple((inverse // np.gcd.reduce(inverse)).tolist())}  # divided, or multiplied
        found = relation(_per_row(expected, counts.sum() / (len(counts) * counts)), expected, 1e-5, 1e-6)
        assert (found.pattern, found.factor) == ("row_scale", "shared"), (counts, found)
        assert row_reading(found.row_factors).counts in readings, (counts, found)
        # the other way round: one mean over every entry where each example's own mean is asked
        other = relation(_per_row(expected, len(counts) * counts / counts.sum()), expected, 1e-5, 1e-6)
        assert (other.pattern, other.factor) == ("row_scale", "shared"), (counts, other)
        assert row_reading(other.row_factors).counts in readings, (counts, other)


def test_is_a_row_scaled_by_no_count_a_row_scale_read_as_none(rng):
    # a norm of each row's own, or the chain rule's f'(row) of a log or a square: no count makes them
    for _ in range(DRAWS):
        expected = _rows(rng)
        norms = _apart(lambda: np.linalg.norm(rng.normal(size=(expected.shape[0], 5)), axis=1))
        found = relation(_per_row(expected, 1.0 / norms), expected, 1e-5, 1e-6)
        assert (found.pattern, found.factor) == ("row_scale", "other"), (norms, found)


def test_is_one_factor_for_every_row_still_a_scale(rng):
    for _ in range(DRAWS):
        expected = _rows(rng)
        count = int(rng.integers(2, 40))
        smaller = relation((expected / count).astype(np.float32), expected, 1e-5, 1e-6)
        larger = relation((expected * count).astype(np.float32), expected, 1e-5, 1e-6)
        assert (smaller.pattern, smaller.factor) == ("scale", f"1/{count}") and not smaller.row_factors
        assert (larger.pattern, larger.factor) == ("scale", str(count))


def test_is_another_function_not_a_row_scale(rng):
    for _ in range(DRAWS):
        expected = _rows(rng)
        columns = _apart(lambda: rng.uniform(0.3, 3.0, size=expected.shape[-1]))  # a factor per column
        others = {"per column": expected * columns, "squared": expected ** 2,
                  "noisy": expected * (1 + 0.2 * rng.normal(size=expected.shape)),
                  "a row zeroed": _per_row(expected, np.r_[0.0, 1.0 / _counts(rng, expected.shape[0] - 1)])}
        for name, actual in others.items():
            found = relation(actual.astype(np.float32), expected, 1e-5, 1e-6)
            assert found.pattern not in ("row_scale", "scale"), (name, found)
        vector = expected.reshape(-1)  # one entry per row: a multiple of anything, so never a row scale
        assert relation(vector * rng.uniform(0.5, 2.0, size=vector.size).astype(np.float32), vector, 1e-5,
                        1e-6).pattern != "row_scale"


def test_is_a_row_scale_on_a_hidden_input_told_without_its_factors(rng):
    expected = _rows(rng)
    counts = _counts(rng, expected.shape[0])
    ref = {"type": "Tensor", "dtype": "float32", "shape": list(expected.shape), "key": "r"}
    report = compare(ref, {"r": expected}, dict(ref, key="g"), {"g": _per_row(expected, 1.0 / counts)}, 7, 1e-5, 1e-6)[0]
    assert report.pattern == "row_scale" and report.blind_detail == "differs from the reference by a factor that " \
        "changes from row to row"
