"""Compare a learner's returned gradients with the reference: numpy only.

Checks run in a fixed order, and the first one that fails names the symptom:
None → type → shape → dtype → non-finite → values. Shape and dtype come
before values because numpy's `allclose` broadcasts (`allclose([2, 2], 2.0)`
is True) and treats NaN as unequal to itself.
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from gradtutor.checking.factors import row_reading
from gradtutor.messages import say

# "Zeros" is its own symptom: the reference gradient is clearly non-zero, the
# learner's is zero or float32 round-off (a softmax-sum gradient is ~1e-9).
REFERENCE_NONZERO = 1e-3
LEARNER_ZERO = 1e-6


@dataclasses.dataclass
class ElementReport:
    """One returned tensor on one seed, against its reference."""

    seed: int
    element: int | None  # position in a returned tuple; None for a single tensor
    symptom: str | None  # None: it matches. Else none|type|shape|dtype|nonfinite|zeros|values
    detail: str = ""
    learner_type: str = ""
    exact: bool | None = None
    allclose: bool | None = None
    max_abs_diff: float | None = None
    worst_index: tuple | None = None
    learner_at_worst: float | None = None
    reference_at_worst: float | None = None
    learner_max_abs: float | None = None
    reference_max_abs: float | None = None
    pattern: str | None = None  # scale | row_scale | sign | transposed | partial: how the values relate to the reference
    factor: str | None = None  # for scale: the ratio, named ("1/4", "2", "0.37"); for partial: "k/n"; for row_scale:
    # how the factors read (gradtutor.checking.factors.ROW_COUNTS, or "other")
    zero_there: bool = False  # partial: the learner's wrong entries are all zero
    row_factors: tuple | None = None  # row_scale: each row's own ratio (None for a row the reference has all zero)

    @property
    def passed(self) -> bool:
        return self.symptom is None

    @property
    def blind_detail(self) -> str:
        """The detail without the reference's numbers or shape: what a failure on a hidden input may say.

        A learner who read the expected values of a hidden input could hard-code them;
        the symptom itself (None, wrong type or dtype, NaN, zeros) gives nothing away.
        """
        if self.symptom == "shape":
            return say("compare.shape_blind", shape=self.shape_got)
        if self.symptom == "zeros":
            return say("compare.zeros_blind")
        if self.symptom == "values":  # a factor with the learner's own values would give the reference's away
            blind = {"scale": "compare.scale_blind", "row_scale": "compare.row_scale_blind"}
            return say(blind.get(self.pattern, "compare.values_blind"))
        return self.detail

    shape_got: str = ""  # for a shape mismatch: the learner's shape, as the detail prints it


def compare(reference: dict, ref_arrays: dict, learner: dict, learner_arrays: dict,
            seed: int, rtol: float, atol: float) -> list[ElementReport]:
    """Reports for every element of one seed's result; a structure mismatch is one report."""
    if reference.get("type") == "tuple":
        expected = len(reference["items"])
        if learner.get("type") == "None":
            return [ElementReport(seed, None, "none", say("compare.none_for_tuple"), "none")]
        if learner.get("type") not in ("tuple", "list") or learner.get("items") is None:
            got = _type_name(learner)
            return [ElementReport(seed, None, "type", say("compare.not_a_tuple", got=_type_text(learner),
                                                          expected=expected), got)]
        if learner["length"] != expected:
            return [ElementReport(seed, None, "type", say("compare.tuple_length", got=learner["length"],
                                                          expected=expected), _type_name(learner))]
        return [
            _compare_tensor(ref, ref_arrays, got, learner_arrays, seed, index, rtol, atol)
            for index, (ref, got) in enumerate(zip(reference["items"], learner["items"]))
        ]
    return [_compare_tensor(reference, ref_arrays, learner, learner_arrays, seed, None, rtol, atol)]


def _compare_tensor(ref: dict, ref_arrays: dict, got: dict, got_arrays: dict,
                    seed: int, element: int | None, rtol: float, atol: float) -> ElementReport:
    report = ElementReport(seed, element, None, learner_type=_type_name(got))
    expected = ref_arrays[ref["key"]]
    report.reference_max_abs = _max_abs(expected)
    if got.get("type") == "None":
        report.symptom, report.detail = "none", say("compare.is_none")
        return report
    if got.get("type") != "Tensor":
        report.symptom, report.detail = "type", say("compare.not_a_tensor", got=_type_text(got))
        return report
    actual = got_arrays.get(got.get("key", ""))
    if actual is None:
        report.symptom, report.detail = "type", say("compare.tensor_dtype", got=got.get("dtype"), expected=ref["dtype"])
        return report
    if list(actual.shape) != list(expected.shape):
        if actual.ndim >= 2 and list(np.swapaxes(actual, -1, -2).shape) == list(expected.shape) and \
                np.allclose(np.swapaxes(actual, -1, -2), expected, rtol=rtol, atol=atol):
            report.pattern = "transposed"
        report.symptom = "shape"
        report.shape_got = _shape(actual.shape)
        report.detail = say("compare.shape", got=report.shape_got, expected=_shape(expected.shape))
        return report
    if got.get("dtype") != ref.get("dtype"):
        report.symptom, report.detail = "dtype", say("compare.dtype", got=got.get("dtype"), expected=ref.get("dtype"))
        return report
    report.learner_max_abs = _max_abs(actual)
    bad = ~np.isfinite(actual) & np.isfinite(expected)
    if bad.any():
        count = int(bad.sum())
        report.symptom, report.detail = "nonfinite", say("compare.nonfinite", count=count)
        return report
    _fill_differences(report, actual, expected, rtol, atol)
    if not report.allclose:
        if report.reference_max_abs >= REFERENCE_NONZERO and report.learner_max_abs <= LEARNER_ZERO:
            report.symptom = "zeros"
            report.detail = say("compare.zeros", got=f"{report.learner_max_abs:.2g}",
                                expected=f"{report.reference_max_abs:.3g}")
        else:
            report.symptom = "values"
            report.detail = say("compare.values", diff=f"{report.max_abs_diff:.3g}", at=_index(report.worst_index),
                                got=f"{report.learner_at_worst:.6g}", expected=f"{report.reference_at_worst:.6g}")
            found = relation(actual, expected, rtol, atol)
            report.pattern, report.factor, report.zero_there = found.pattern, found.factor, found.zero_there
            report.row_factors = found.row_factors or None
    return report


class Relation(NamedTuple):
    pattern: str | None  # scale | row_scale | sign | transposed | partial, or None
    factor: str | None = None  # scale: the ratio, named; sign: "-1"; partial: "k/n" entries wrong; row_scale: the reading
    zero_there: bool = False  # partial: the wrong entries are all zero
    row_factors: tuple = ()  # row_scale: each row's own ratio (None for a row the reference has all zero)


def relation(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> Relation:
    """How wrong values relate to the reference, when exactly: a sign flip, a constant factor
    (a mean for a sum: 1/N), a transposition of the last two axes, a factor of each row's own
    (a mean over each row's own count), or only some entries wrong."""
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    if not np.isfinite(a).all() or not np.isfinite(e).all() or not e.any():
        return Relation(None)
    loose = dict(rtol=max(rtol, 1e-4) * 10, atol=atol * 10)
    if np.allclose(a, -e, **loose):
        return Relation("sign", "-1")
    ratio = float((a * e).sum() / (e * e).sum())
    if abs(ratio) > 1e-6 and abs(ratio - 1) > 1e-3 and np.allclose(a, ratio * e, **loose):
        return Relation("scale", _factor(ratio))
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2] and np.allclose(np.swapaxes(a, -1, -2), e, **loose):
        return Relation("transposed")
    rows = row_factors(a, e, loose)
    if rows:
        return Relation("row_scale", row_reading(rows).reading, row_factors=rows)
    right = np.isclose(a, e, rtol=rtol, atol=atol)
    if right.any() and a.ndim >= 1:
        wrong = int((~right).sum())
        zeros = bool(np.all(np.abs(a[~right]) <= LEARNER_ZERO))
        return Relation("partial", f"{wrong}/{a.size}", zeros)
    return Relation(None)


def row_factors(a: np.ndarray, e: np.ndarray, loose: dict) -> tuple:
    """Each row's own ratio (first axis) when every row of `a` is its reference row times a number and the
    numbers are not all one (that is a scale); () otherwise.

    A row needs two entries or more (one entry is a multiple of anything), two rows must have a non-zero
    reference (one ratio says nothing of a pattern), and no ratio may be zero (a zeroed row is `partial`).
    A row whose reference is zero has no ratio (None); the learner's row must be zero there too.
    """
    if a.ndim < 2 or a.shape[0] < 2 or a[0].size < 2:
        return ()
    a2, e2 = a.reshape(a.shape[0], -1), e.reshape(e.shape[0], -1)
    live = np.abs(e2).max(axis=1) > loose["atol"]  # a row distinguishable from zero
    if live.sum() < 2:
        return ()
    ratios = np.where(live, (a2 * e2).sum(axis=1) / np.where(live, (e2 * e2).sum(axis=1), 1.0), 0.0)
    if not np.isfinite(ratios).all() or not np.allclose(a2, ratios[:, None] * e2, **loose):
        return ()
    kept = ratios[live]
    if np.any(np.abs(kept) <= 1e-6) or np.allclose(kept, kept[0], rtol=1e-3, atol=0):
        return ()
    return tuple(float(r) if alive else None for r, alive in zip(ratios, live))


def _factor(ratio: float) -> str:
    """A ratio as a learner reads it: 1/N or N for a whole N, -N for a flipped one, else three digits."""
    for value, sign in ((ratio, ""), (-ratio, "-")):
        if value >= 1 and abs(value - round(value)) < 1e-3 * value:
            return f"{sign}{round(value)}"
        if 0 < value < 1 and abs(1 / value - round(1 / value)) < 1e-3 / value:
            return f"{sign}1/{round(1 / value)}"
    return f"{ratio:.3g}"


def _fill_differences(report: ElementReport, actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> None:
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    report.exact = bool(np.array_equal(actual, expected, equal_nan=True))
    report.allclose = bool(np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True))
    if a.size == 0:
        report.max_abs_diff = 0.0
        return
    diff = np.abs(a - e)
    diff = np.where(np.isnan(diff), 0.0, diff)  # NaN in both places agrees
    flat = int(np.argmax(diff))
    index = np.unravel_index(flat, a.shape) if a.shape else ()
    report.max_abs_diff = float(diff.reshape(-1)[flat])
    report.worst_index = tuple(int(i) for i in index)
    report.learner_at_worst = float(a.reshape(-1)[flat])
    report.reference_at_worst = float(e.reshape(-1)[flat])


def _max_abs(array: np.ndarray) -> float:
    if array.size == 0:
        return 0.0
    finite = np.abs(array[np.isfinite(array)]) if array.dtype.kind in "fc" else np.abs(array)
    return float(finite.max()) if finite.size else 0.0


# A returned value's kind (the child's ValueKind) → its catalogue id under compare.kind (the learner_type)
KINDS = {"None": "none", "Tensor": "tensor", "Variable": "variable", "keras.Variable": "keras_variable",
         "IndexedSlices": "indexed_slices", "ndarray": "ndarray", "numpy scalar": "numpy_scalar", "float": "float",
         "int": "int", "bool": "bool", "tuple": "tuple", "list": "list"}


def _type_name(described: dict) -> str:
    """The stable name of what was returned (a key of KINDS' values, or "other")."""
    return KINDS.get(described.get("type", "?"), "other")


def _type_text(described: dict) -> str:
    """What was returned, in words: "a numpy array", "a tuple of 2", "an object of type Foo"."""
    kind = _type_name(described)
    return say(f"compare.kind.{kind}", length=described.get("length"),
               name=described.get("name", described.get("type", "?")))


def _shape(shape) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _index(index: tuple | None) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]" if index else "[]"
