"""What each symptom means, defined once: a saturated activation, a dead ReLU, a tiny or non-finite gradient.

Read by the checker's run facts (gradtutor.evidence.reading.run_facts: is an activation saturated
*anywhere*, so that a gradient zero there is explained) and by `gradtutor explain`'s analysis
(gradtutor.evidence.reading.values: is it saturated *everywhere*, so that the whole gradient is
flat), and by the check of a returned gradient (gradtutor.evidence.reading.checks). Both questions
ask of the same element: is its slope factor within SATURATED of zero? It sits below both halves of
the evidence: the recording checks TINY inside compiled graphs (traced.py) and keeps the values of
SATURATING and RELUS ops (opfacts.py), the reading concludes from the same definitions.
"""
from __future__ import annotations

import numpy as np

from gradtutor.protocol import Symptom

# float32 sigmoid(x) rounds to exactly 1.0 from x ≈ 17, and is within 1e-6 of it from x ≈ 14; tanh from ≈ 7
SATURATED = 1e-6
# the ops whose output flattens its slope at a limit: sigmoid and softmax in (0, 1), tanh in (-1, 1)
SATURATING = frozenset({"Sigmoid", "Tanh", "Softmax"})
RELUS = frozenset({"Relu", "Relu6"})
TINY = 1e-6  # a gradient whose largest element is below this is only reported when the evidence names a cause
# an all-zero gradient on a half-precision path whose target, run again in a wider float, moved too little to tell
UNSHOWN = "unshown"


def saturated_elements(op_type: str, out) -> np.ndarray | None:
    """Per element of a sigmoid, tanh or softmax output: is it within SATURATED of its limit (its slope ~0)?
    None for other ops and for values that are not floats."""
    if op_type not in SATURATING or out is None or getattr(out, "dtype", None) is None or out.dtype.kind != "f":
        return None
    if op_type == "Tanh":
        return 1 - np.abs(out) <= SATURATED
    # sigmoid, and softmax: a row is saturated when its largest entry is within SATURATED of 1, i.e. every
    # entry of it within SATURATED of 0 or 1
    return np.minimum(out, 1 - out) <= SATURATED


def saturated_somewhere(op_type: str, out) -> bool:
    mask = saturated_elements(op_type, out)
    return bool(mask is not None and mask.any())


def saturated_everywhere(op_type: str, out) -> bool:
    mask = saturated_elements(op_type, out)
    return bool(mask is not None and mask.size and mask.all())


def dead(op_type: str, out) -> bool:
    """A ReLU whose every output is 0: no element passes a gradient back."""
    return op_type in RELUS and out is not None and bool(out.size) and not out.any()


def gradient_symptom(value) -> Symptom | None:
    """What a returned gradient's values show (nonfinite, zeros, tiny), or None when they look fine."""
    return symptom_and_peak(value)[0]


def symptom_and_peak(value) -> tuple[Symptom | None, float | None]:
    """What a gradient's values show, and their largest finite magnitude (None if none is finite): one pass of abs
    and max over the values (the max of magnitudes is NaN or inf when one is), and one more over the finite ones
    only when some are not. A read of a large gradient costs a few milliseconds, on the sampled calls of a loop."""
    if value is None or value.dtype.kind not in "fc" or not value.size:
        return None, None
    magnitudes = np.abs(value)
    largest = magnitudes.max()
    if np.isfinite(largest):
        return (Symptom.ZEROS if largest == 0 else Symptom.TINY if largest < TINY else None), float(largest)
    finite = magnitudes[np.isfinite(magnitudes)]
    return Symptom.NONFINITE, (float(finite.max()) if finite.size else None)


# How large the data a saturated layer was fed is: a sigmoid or tanh whose layer reads the data itself, in the
# thousands (raw 16-bit pixels, incomes in dollars), saturates from its first step whatever its weights, and the repair
# is to scale the data (gradtutor/explain/fix/by_cause/activations.py), not to change the weights. From the saturated op
# back through its layer's own linear ops (the bias's add, the matmul or convolution, a cast), always by their first
# input, to the tensor the layer was given: when no op made it (data, a NumPy array converted) or a dataset's iterator
# gave it (a batch fit drew), and its value is still held, its largest magnitude is the evidence. A layer given another
# layer's output is not the data's to blame.

# a layer's pre-activation from its input, by the first input: x @ W, x + b, conv(x, f), a cast of x
LINEAR = frozenset({"MatMul", "BatchMatMulV2", "AddV2", "Add", "BiasAdd", "Conv1D", "Conv2D", "Conv3D", "Cast",
                    "Identity"})
DATA = frozenset({"IteratorGetNext", "IteratorGetNextSync", "OptionalGetValue"})  # a batch a dataset gave (fit's)
LARGE = 20.0  # data well beyond the unit scale a layer's initial weights expect (Glorot's: inputs of about 1)


def data_facts(op) -> dict:
    """{"input_max": the data's largest magnitude} when the saturated op's layer read data that large; else {}."""
    largest = data_magnitude(op)
    return {"input_max": f"{largest:.3g}"} if largest is not None and largest > LARGE else {}


def data_magnitude(op) -> float | None:
    """The largest magnitude of the data the op's layer was given, or None: given a computed value, or not held."""
    node = op.inputs[0] if op.inputs else None
    for _ in range(8):  # a few linear ops at most between a layer's input and its activation
        if node is None or node.op is None or node.op.type not in LINEAR or not node.op.inputs:
            break
        node = node.op.inputs[0]
    if node is None or node.op is not None and node.op.type not in DATA:
        return None
    tensor = node.ref()
    try:
        value = np.asarray(tensor._numpy()) if tensor is not None else None
    except Exception:  # noqa: BLE001 - a resource, a variant, a deleted tensor
        value = None
    if value is None or value.dtype.kind not in "fiu" or not value.size:
        return None
    value = np.abs(value.astype(np.float64))
    return float(value.max()) if np.isfinite(value).all() else None
