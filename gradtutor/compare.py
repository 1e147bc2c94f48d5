"""Compare a learner's returned gradients with the reference: numpy only.

Checks run in a fixed order, and the first one that fails names the symptom:
None → type → shape → dtype → non-finite → values. Shape and dtype come
before values because numpy's `allclose` broadcasts (`allclose([2, 2], 2.0)`
is True) and treats NaN as unequal to itself.
"""
from __future__ import annotations

import dataclasses

import numpy as np

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
    pattern: str | None = None  # scale | sign | transposed | partial: how the values relate to the reference
    factor: str | None = None  # for scale: the ratio, named ("1/4", "2", "0.37"); for partial: "k of n"

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
            return self.detail.split(", expected")[0] + ", not the shape this input needs"
        if self.symptom == "zeros":
            return "is zero everywhere, where the reference is not"
        if self.symptom == "values":
            return "differs from the reference" + (f" by a constant factor of {self.factor}"
                                                   if self.pattern == "scale" else "")
        return self.detail


def compare(reference: dict, ref_arrays: dict, learner: dict, learner_arrays: dict,
            seed: int, rtol: float, atol: float) -> list[ElementReport]:
    """Reports for every element of one seed's result; a structure mismatch is one report."""
    if reference.get("type") == "tuple":
        expected = len(reference["items"])
        if learner.get("type") == "None":
            return [ElementReport(seed, None, "none", "returned None instead of a tuple", "None")]
        if learner.get("type") not in ("tuple", "list") or learner.get("items") is None:
            got = _type_name(learner)
            return [ElementReport(seed, None, "type", f"returned {got}, expected a tuple of {expected} tensors", got)]
        if learner["length"] != expected:
            return [ElementReport(seed, None, "type",
                                  f"returned {learner['length']} values, expected a tuple of {expected}", learner["type"])]
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
        report.symptom, report.detail = "none", "is None"
        return report
    if got.get("type") != "Tensor":
        report.symptom, report.detail = "type", f"is {report.learner_type}, expected a tf.Tensor"
        return report
    actual = got_arrays.get(got.get("key", ""))
    if actual is None:
        report.symptom, report.detail = "type", f"is a tensor of dtype {got.get('dtype')}, expected {ref['dtype']}"
        return report
    if list(actual.shape) != list(expected.shape):
        if actual.ndim >= 2 and list(np.swapaxes(actual, -1, -2).shape) == list(expected.shape) and \
                np.allclose(np.swapaxes(actual, -1, -2), expected, rtol=rtol, atol=atol):
            report.pattern = "transposed"
        report.symptom = "shape"
        report.detail = f"has shape {_shape(actual.shape)}, expected {_shape(expected.shape)}"
        return report
    if got.get("dtype") != ref.get("dtype"):
        report.symptom, report.detail = "dtype", f"has dtype {got.get('dtype')}, expected {ref.get('dtype')}"
        return report
    report.learner_max_abs = _max_abs(actual)
    bad = ~np.isfinite(actual) & np.isfinite(expected)
    if bad.any():
        count = int(bad.sum())
        report.symptom, report.detail = "nonfinite", f"has {count} NaN/inf value{'s' * (count > 1)} where the reference is finite"
        return report
    _fill_differences(report, actual, expected, rtol, atol)
    if not report.allclose:
        if report.reference_max_abs >= REFERENCE_NONZERO and report.learner_max_abs <= LEARNER_ZERO:
            report.symptom = "zeros"
            report.detail = (f"is zero everywhere (max |g| = {report.learner_max_abs:.2g}) "
                             f"where the reference reaches {report.reference_max_abs:.3g}")
        else:
            report.symptom = "values"
            report.detail = (f"differs from the reference: max abs diff {report.max_abs_diff:.3g} at "
                             f"{_index(report.worst_index)} (yours {report.learner_at_worst:.6g}, "
                             f"expected {report.reference_at_worst:.6g})")
            report.pattern, report.factor = relation(actual, expected, rtol, atol)
    return report


def relation(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> tuple[str | None, str | None]:
    """How wrong values relate to the reference, when exactly: a sign flip, a constant factor
    (a mean for a sum: 1/N), a transposition of the last two axes, or only some entries wrong."""
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    if not np.isfinite(a).all() or not np.isfinite(e).all() or not e.any():
        return None, None
    loose = dict(rtol=max(rtol, 1e-4) * 10, atol=atol * 10)
    if np.allclose(a, -e, **loose):
        return "sign", "-1"
    ratio = float((a * e).sum() / (e * e).sum())
    if abs(ratio) > 1e-6 and abs(ratio - 1) > 1e-3 and np.allclose(a, ratio * e, **loose):
        return "scale", _factor(ratio)
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2] and np.allclose(np.swapaxes(a, -1, -2), e, **loose):
        return "transposed", None
    right = np.isclose(a, e, rtol=rtol, atol=atol)
    if right.any() and a.ndim >= 1:
        wrong = int((~right).sum())
        zeros = bool(np.all(np.abs(a[~right]) <= LEARNER_ZERO))
        return "partial", f"{wrong} of {a.size}" + (" (zero there)" if zeros else "")
    return None, None


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


def _type_name(described: dict) -> str:
    kind = described.get("type", "?")
    return {
        "None": "None",
        "Tensor": "a tf.Tensor",
        "Variable": "a tf.Variable",
        "keras.Variable": "a keras.Variable",
        "IndexedSlices": "a tf.IndexedSlices",
        "ndarray": "a numpy array",
        "numpy scalar": "a numpy scalar",
        "float": "a Python float",
        "int": "a Python int",
        "bool": "a Python bool",
        "tuple": f"a tuple of {described.get('length')}",
        "list": f"a list of {described.get('length')}",
    }.get(kind, f"an object of type {described.get('name', kind)}")


def _shape(shape) -> str:
    return "(" + ", ".join(str(int(n)) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _index(index: tuple | None) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]" if index else "[]"
