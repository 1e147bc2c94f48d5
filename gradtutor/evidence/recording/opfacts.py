"""What TensorFlow itself says about an op type: is there a gradient, is it zero, can it make NaN.

The registry answers come from TensorFlow's gradient registry (`ops.gradient_registry`):
`tf.no_gradient` registers None, an op with no entry has no gradient at all. The
tables below are facts read in TensorFlow's own gradient functions (math_grad.py,
array_grad.py): ops whose registered gradient returns None or zeros.
"""
from __future__ import annotations

from functools import cache

from gradtutor.evidence.symptoms import RELUS, SATURATING  # noqa: F401 - saturated and dead, defined once

# registered gradient returns only None (math_grad.py: _ArgMaxGrad, _ArgMinGrad, _FloorDivGrad,
# _TruncateDivGrad, _FloorGrad, _CeilGrad, _RoundGrad, _RintGrad)
NONE_GRADIENT = frozenset({"ArgMax", "ArgMin", "FloorDiv", "TruncateDiv", "Floor", "Ceil", "Round", "Rint"})
# registered gradient is all zeros (math_grad.py: _SignGrad)
ZERO_GRADIENT = frozenset({"Sign"})
# the values leave TensorFlow: Python runs on numpy arrays (script_ops.py)
PYTHON_FUNCTIONS = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc"})
STOP = frozenset({"StopGradient", "PreventGradient"})
# ops whose gradient is infinite or NaN at some inputs: their values are kept while a tape records
RISKY = frozenset({"Sqrt", "Rsqrt", "Log", "Log1p", "Reciprocal", "Inv", "RealDiv", "Div", "Pow", "Xlogy",
                   "Xdivy", "Acos", "Asin", "Atanh", "Exp", "SelectV2", "Select", "Lgamma", "Digamma", "Angle",
                   "Atan2"})
KEEP_VALUES = RISKY | SATURATING | RELUS | {"ClipByValue", "Maximum", "Minimum"}
# ops whose output's size depends on their input's values (math and image ops' docs): the size of what they return
# (tf.size of the boxes non-max suppression kept) carries the values, unlike the shape of any other tensor
VALUE_SIZED = frozenset({"NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4",
                         "NonMaxSuppressionV5", "Unique", "UniqueV2", "UniqueWithCounts", "UniqueWithCountsV2",
                         "Where", "ListDiff"})
# ops that only move or rename values: a softmax output stays one through them
PASS_THROUGH = frozenset({"Identity", "Reshape", "ExpandDims", "Squeeze", "IdentityN", "Cast"})


@cache
def gradient_kind(op_type: str) -> str:
    """'ok', 'none' (tf.no_gradient or a gradient returning None), 'zero', 'missing' (no entry), 'python'."""
    if op_type in PYTHON_FUNCTIONS:
        return "python"
    if op_type in STOP:
        return "stop"
    if op_type in NONE_GRADIENT:
        return "none"
    if op_type in ZERO_GRADIENT:
        return "zero"
    from tensorflow.python.framework import ops

    try:
        function = ops.gradient_registry.lookup(op_type)
    except LookupError:
        return "missing"
    return "ok" if function is not None else "none"


# variant values a gradient goes through (a compiled loop's TensorLists, a Keras RNN's; the loop op, linked through its
# body by compiled.links), unlike a tf.data dataset's or iterator's
DIFFERENTIABLE_VARIANTS = ("TensorList", "IdentityN", "Identity", "While", "StatelessWhile")


def holds_state(op_type: str, outputs) -> bool:
    """Is the op's value state a gradient does not go through: a tf.data dataset or iterator (a variant value)?"""
    return "Dataset" in op_type or not op_type.startswith(DIFFERENTIABLE_VARIANTS) and any(
        getattr(out, "dtype", None) is not None and out.dtype.name == "variant" for out in outputs)


def widens_to_float64(inputs, outputs) -> bool:
    """An op that made float64 out of a narrower float (a cast, or float32 meeting a float64 constant)."""
    made = [getattr(t, "dtype", None) for t in outputs or ()]
    fed = [getattr(t, "dtype", None) for t in inputs or ()]
    return any(d is not None and d.name == "float64" for d in made) and \
        any(d is not None and d.is_floating and d.name in ("float32", "float16", "bfloat16") for d in fed)


def widened_attrs(op_type: str, attrs: tuple, narrow: frozenset, wide: str) -> tuple:
    """An op's attrs (name, value, name, value, …) with every type attr of a dtype named in `narrow` made `wide`: the
    op run again in a wider float (the op's definition says which attrs are types). A replay that widens its inputs
    the same way then rounds far below what it measures."""
    from tensorflow.python.framework import dtypes, op_def_registry

    enums = {getattr(dtypes, name).as_datatype_enum for name in narrow}
    into = getattr(dtypes, wide).as_datatype_enum
    kinds = {attr.name: attr.type for attr in op_def_registry.get(op_type).attr}
    out = list(attrs)
    for i in range(0, len(out) - 1, 2):
        kind = kinds.get(out[i])
        if kind == "type" and out[i + 1] in enums:
            out[i + 1] = into
        elif kind == "list(type)":
            out[i + 1] = [into if t in enums else t for t in out[i + 1]]
    return tuple(out)
