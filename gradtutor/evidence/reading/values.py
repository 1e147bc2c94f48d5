"""What the values an op kept say about its gradient: NaN-prone inputs, saturation, dead ReLUs, zero slopes; and which
op on a path made a NaN or inf rather than passed on one it was given (`birth`). `op` is anything with `.type` and
`.values` = (input tensors, output tensors): an op that `gradtutor explain` recorded, or one the checker's run facts
see in the op callback.
"""
from __future__ import annotations

import numpy as np

from gradtutor.evidence.recording import opfacts
from gradtutor.evidence import symptoms
from gradtutor.protocol import Cause


def kept_value(tensor):
    """The numpy value of a kept tensor, without counting it as leaving TensorFlow; None if it has none."""
    try:
        return np.asarray(tensor._numpy())
    except Exception:  # noqa: BLE001 - a resource, a variant, a deleted tensor
        return None


def evidence_at(op) -> Cause | None:
    """The cause this op's kept values point at, or None (saturated and dead: gradtutor.evidence.reading.symptoms)."""
    if op.type == "Sign":
        return Cause.NO_GRADIENT_OP
    if op.values is None or op.type not in opfacts.KEEP_VALUES:
        return None
    inputs, outputs = op.values
    out = kept_value(outputs[0]) if outputs else None
    if out is None or out.dtype.kind not in "fc":
        return None
    if op.type in SELECTS and _dropped_nonfinite(inputs):
        return Cause.NON_FINITE
    if _zero_sensitive(op.type, inputs):
        return Cause.NON_FINITE
    if out.size and not np.isfinite(out).all():
        return Cause.NON_FINITE
    # clipped everywhere: a crossentropy clipping probabilities to [eps, 1 - eps] (Minimum(Maximum(x, low), high))
    if out.size and (clipped := clip_mask(op.type, inputs)) is not None and clipped.all():
        return Cause.SATURATION
    if op.type in symptoms.RELUS:
        return Cause.DEAD_RELU if symptoms.dead(op.type, out) else None
    if op.type == "Softmax" and out.ndim and out.shape[-1] == 1:  # a softmax over one unit: 1, whatever it is given
        return Cause.SOFTMAX_SUM
    if symptoms.saturated_everywhere(op.type, out):  # the whole gradient through it is flat
        return Cause.SATURATION
    # exp(x) rounded to 0 (x below about -104 in float32): its slope, exp(x), is 0 too (1 / (1 + exp(-z)) at large z)
    return Cause.SATURATION if op.type == "Exp" and out.size and not out.any() else None


def given_nonfinite(op) -> bool:
    """Was a NaN or inf already among the float values the op was given? Then a NaN or inf it returned is what it
    was handed, not what it made (False when its inputs were not kept)."""
    values = [kept_value(tensor) for tensor in op.values[0]] if op.values is not None else []
    return any(value is not None and value.dtype.kind in "fc" and value.size and not np.isfinite(value).all()
               for value in values)

# Which op on a gradient's path made its NaN or inf (issue 35: exploding gradients). An op whose kept values point
# at a NaN (evidence_at) made it when it was given finite values (a sqrt at 0, an exp that overflowed), or is a
# tf.where that drops one. An op *given* a NaN or inf that passed it on is not where it was born: a relu cannot make
# one, and a NaN-prone op (sqrt, log, …) handed an inf by a forward pass that overflowed while the weights were still
# finite is not to blame either — a gradient that grew, whose cause no rule knows. Only when the weights already held
# NaN or inf (a compiled step replayed eagerly after the step that broke them: traced.py) is the first NaN-prone op
# they reach the best evidence left of the birth (and a where dropping their NaN is not: it was handed it).
SELECTS = frozenset({"Select", "SelectV2"})  # its evidence is a NaN branch it drops: the unsafe where
EDGE_AT_ONE = frozenset({"Acos", "Asin", "Atanh"})  # finite at ±1, their slope there is not


def birth(graph, ops, tape, source):
    """The op that made the NaN or inf on this path (ops in the order they ran), or None when none did."""
    broken = None  # were the weights already NaN or inf when the path ran? read once, if it matters
    for op in ops:
        if evidence_at(op) != Cause.NON_FINITE:
            continue
        where = op.type in SELECTS  # to blame for a NaN it drops (one in the branch it keeps, it passes on)
        if not where and not given_nonfinite(op):
            return op  # it made a NaN or inf out of finite values
        if where and not _dropped_nonfinite(op.values[0]) or not where and op.type not in opfacts.RISKY:
            continue  # a relu, a sigmoid, a sum: what it returned is what it was given
        if broken is None:
            broken = weights_nonfinite(graph, tape, source)
        if broken != where:  # a where that drops a NaN the broken weights made is not to blame either
            return op
    return _half_overflow(ops) or _fed_in(ops)


FED_IN = 256  # ops looked at behind a NaN or inf that entered the path from beside it


def _fed_in(ops):
    """The op that made a NaN or inf which entered the path from beside it (an attention mask's 1e10 cast to float16
    is inf, times 0 is NaN, added to the scores): walking back from the path ops given one, the earliest op
    that made its NaN or inf from finite values as birth's own rules say. None when there is none (or nothing was
    kept)."""
    given = [op for op in ops if given_nonfinite(op)]  # each may have been handed it from beside the path
    if not given or _half_constant(given[0]):
        return given[0] if given else None
    on_path, made, seen, frontier = {id(op) for op in ops}, None, set(), given[::-1]
    while frontier and len(seen) < FED_IN:
        op = frontier.pop()
        for node in getattr(op, "inputs", ()):
            behind = getattr(node, "op", None)
            if behind is None or id(behind) in seen or id(behind) in on_path or behind.values is None:
                continue
            seen.add(id(behind))
            out = kept_value(behind.values[1][0]) if behind.values[1] else None
            if out is None or out.dtype.kind not in "fc" or _finite(out):
                continue
            frontier.append(behind)
            # made from finite values by an op that makes NaN (a log at 0), or in float16 (a constant beyond its
            # range): a float32 matmul that overflowed is a forward pass that grew, whose cause no rule knows
            born = _half_constant(behind) or not given_nonfinite(behind) and (
                out.dtype == np.float16 or evidence_at(behind) == Cause.NON_FINITE)
            if born and (made is None or behind.seq < made.seq):
                made = behind
    return made if made is not None else next((op for op in given if _from_data(op)), None)


def _from_data(op) -> bool:
    """Was it handed its NaN or inf by a float32/64 value no recorded op made (a NumPy array, a constant, a replayed
    step's argument, a value made before the recording saw it)? float16's inf constant is `_half_constant`'s."""
    return op.values is not None and any(
        getattr(node, "op", True) is None and value is not None and value.dtype in (np.float32, np.float64)
        and value.size and not _finite(value)
        for node, value in zip(getattr(op, "inputs", ()), map(kept_value, op.values[0])))


def _half_constant(op) -> bool:
    """Was the op given a float16 constant that is inf (a Python number beyond 65504, such as a mask's -1e9, turned
    float16 as it met a float16 tensor: no op made it, so the op it met is where it entered)?"""
    if op.values is None:
        return False
    for node, tensor in zip(getattr(op, "inputs", ()), op.values[0]):
        value = kept_value(tensor) if getattr(node, "op", True) is None else None
        if value is not None and value.dtype == np.float16 and value.size and np.isinf(value).any():
            return True
    return False


def _half_overflow(ops):
    """The first op whose float16 output holds an inf made from finite values, or None. float16's largest value is
    65504, so under mixed precision any op can overflow (a square of 256, a sum of many large losses), not only the
    NaN-prone ones evidence_at reads; in float32 such an inf is a forward pass that grew (exploding weights)."""
    for op in ops:
        out = kept_value(op.values[1][0]) if op.values is not None and op.values[1] else None
        if out is not None and out.dtype == np.float16 and out.size and np.isinf(out).any() and not given_nonfinite(op):
            return op
    return None


def weights_nonfinite(graph, tape, source) -> bool:
    """Does a variable the tape watched (or the source itself) hold a NaN or inf now, right after the gradient call
    (before any optimizer step), i.e. when the path ran?"""
    variables = list(tape.watched_variables()) if tape is not None else []
    if hasattr(source, "assign") and all(source is not v for v in variables):
        variables.append(source)
    graph.paused += 1  # gradtutor's own reads are not the user's ops
    try:
        for variable in variables:
            if variable.dtype.is_floating or variable.dtype.is_complex:
                value = kept_value(variable.value())
                if value is not None and value.size and not _finite(value):
                    return True
    finally:
        graph.paused -= 1
    return False


def _finite(value) -> bool:
    return bool(np.isfinite(value).all())


def how_made(op) -> str | None:
    """How the op `birth` found made its NaN or inf: 'where' (a tf.where branch it dropped), 'zero' (an input at the
    point where its slope is infinite: sqrt/log/division at 0), 'overflow' (an inf out of finite inputs: exp of a
    large value), 'half_overflow' (the same in float16, whose range ends at 65504), 'half_cast' (a finite value beyond
    that range cast to float16: an attention mask's 1e10) or 'domain' (a NaN out of finite
    inputs: sqrt or log of a negative number, acos beyond 1). Each needs its own fix. 'data': handed one by a value no
    recorded op made (`_from_data`); None: given one otherwise (weights already broken), how it began not known."""
    if op.type in SELECTS:
        return "where"
    if _half_constant(op):
        return "half_cast"
    if given_nonfinite(op):
        return "data" if _from_data(op) else None
    inputs, outputs = op.values
    if _zero_sensitive(op.type, inputs):
        return "edge" if op.type in EDGE_AT_ONE else "zero"
    out = kept_value(outputs[0]) if outputs else None
    if out is not None and np.isinf(out).any() and out.dtype == np.float16:
        return "half_cast" if op.type == "Cast" else "half_overflow"  # a constant beyond 65504 made float16
    if out is not None and np.isinf(out).any():
        return "overflow"
    return "domain"


def dropped_by_where(later) -> bool:
    """Did a tf.where among these ops (the path after the birth) drop a NaN or inf branch? Then it is the dropped
    branch the tape still differentiates that makes the gradient NaN: the fix is a safe input for that branch."""
    return any(op.type in SELECTS and op.values is not None and _dropped_nonfinite(op.values[0]) for op in later)


def _dropped_nonfinite(inputs) -> bool:
    """Does a tf.where (its inputs: condition, then, else) drop a NaN or inf, at an entry where the condition picks
    the other branch? A NaN in the branch it keeps is one it was handed (weights already NaN), not an unsafe where."""
    condition, *branches = (kept_value(t) for t in inputs[:3])
    if condition is None or len(branches) != 2 or any(b is None or b.dtype.kind not in "fc" for b in branches):
        return False
    if condition.ndim == 1 < branches[0].ndim:  # tf.compat.v1.where's Select: one condition per row
        condition = condition.reshape(condition.shape + (1,) * (branches[0].ndim - 1))
    try:
        condition, then, other = np.broadcast_arrays(condition.astype(bool), *branches)
    except ValueError:  # shapes that do not broadcast: nothing can be said
        return False
    return bool((~np.isfinite(then) & ~condition).any() or (~np.isfinite(other) & condition).any())


def _zero_sensitive(op_type, inputs) -> bool:
    """sqrt/log/reciprocal at 0, a division by 0, a power of a zero base below 1, the angle of 0 + 0i (its gradient
    is 1 / (im + i·re), math_grad.py's _AngleGrad), atan2 at (0, 0) (its gradient divides by x² + y²), acos, asin or
    atanh at ±1 (their slopes are ∓1/√(1 − x²) and 1/(1 − x²), while the value there is finite: an angle between two
    equal unit vectors): the gradient is inf or NaN."""
    if op_type in EDGE_AT_ONE:
        value = kept_value(inputs[0]) if inputs else None
        return value is not None and value.dtype.kind == "f" and bool((np.abs(value) == 1).any())
    if op_type == "Atan2":
        y, x = (kept_value(t) for t in inputs[:2]) if len(inputs) >= 2 else (None, None)
        if y is None or x is None or y.dtype.kind != "f" or x.dtype.kind != "f":
            return False
        try:
            return bool(((y == 0) & (x == 0)).any())
        except ValueError:  # shapes that do not broadcast: not a value we can read
            return False
    index = {"RealDiv": 1, "Div": 1, "Xdivy": 1}.get(op_type, 0)
    if op_type not in ("Sqrt", "Rsqrt", "Log", "Reciprocal", "Inv", "RealDiv", "Div", "Xdivy", "Pow", "Log1p", "Angle"):
        return False
    if len(inputs) <= index:
        return False
    value = kept_value(inputs[index])
    if value is None or value.dtype.kind not in "fc":
        return False
    bad = -1.0 if op_type == "Log1p" else 0.0
    hits = value <= 0 if op_type == "Log" else value == bad
    if op_type == "Pow" and hits.any():
        return _below_one(hits, kept_value(inputs[1]) if len(inputs) > 1 else None)
    return bool(value.size and hits.any())


def _below_one(zero_base, exponent) -> bool:
    """x ** y at x = 0: its slope y·x^(y-1) is inf only for y < 1 (x ** 2 at 0 has slope 0). Unknown y: assume it is."""
    if exponent is None or exponent.dtype.kind not in "fc":
        return True
    try:
        exponent = np.broadcast_to(exponent, zero_base.shape)
    except ValueError:
        return True
    return bool((exponent[zero_base].real < 1).any())


def clip_mask(op_type, inputs):
    """Where a clip's float input lies outside its bounds, its slope 0 there: clip_by_value's, or a maximum's or
    minimum's with a scalar bound (tf.clip_by_value runs as both); None for another op or values not kept."""
    values = [kept_value(t) for t in inputs[:3]] if op_type in ("ClipByValue", "Maximum", "Minimum") else []
    if len(values) < 2 or any(v is None for v in values) or not values[0].size or values[0].dtype.kind != "f":
        return None
    if op_type == "ClipByValue" and len(values) == 3:
        return (values[0] < values[1]) | (values[0] > values[2])
    if op_type != "ClipByValue" and len(values) == 2 and values[1].size == 1:  # a maximum or minimum
        return values[0] < values[1] if op_type == "Maximum" else values[0] > values[1]
    return None


# the smallest normal number of each half dtype: below it a value keeps fewer bits, and products of it with the
# factors a backward pass multiplies in (a mean's 1/N, a loss weight) fall below the smallest subnormal, to 0
SMALLEST_NORMAL = {"float16": 6.103515625e-05, "bfloat16": 1.1754943508222875e-38}


def below_half_range(targets, gradient) -> tuple[float, str] | None:
    """(The target's largest magnitude, the half dtype) when an all-zero gradient or its target is float16 or
    bfloat16 and the target's value is finite, not zero, and below that dtype's smallest normal number: what the
    backward pass starts from is already out of the dtype's range, so the zeros are its slopes flushed (underflow),
    not the true slope. None otherwise (the finite-difference probe cannot tell in half precision: source_moves)."""
    if len(targets) != 1:
        return None
    # the half dtype the backward pass ran in: the gradient's, or the target's (a float32 variable cast to
    # float16 by a mixed-precision layer gets a float32 gradient of what underflowed in float16)
    dtype = next((getattr(getattr(t, "dtype", None), "name", "") for t in (gradient, targets[0])
                  if getattr(getattr(t, "dtype", None), "name", "") in SMALLEST_NORMAL), None)
    if dtype is None:
        return None
    value = kept_value(targets[0])
    if value is None or not value.size:
        return None
    try:
        value = np.abs(value.astype(np.float64))  # numpy's bfloat16 (ml_dtypes) is no "f" kind, but converts
    except (TypeError, ValueError):
        return None
    largest = float(value.max())
    return (largest, dtype) if np.isfinite(value).all() and 0 < largest < SMALLEST_NORMAL[dtype] else None
