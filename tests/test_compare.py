"""Does the comparison check None → type → shape → dtype → non-finite → values, in that order?"""
from __future__ import annotations

import numpy as np
import pytest

from gradtutor.compare import compare, relation

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
