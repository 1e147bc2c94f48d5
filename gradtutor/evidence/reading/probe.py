"""A finite-difference probe: does the target really depend on the value a saturated or dead op produced?

A gradient that comes back zero or tiny through a saturated sigmoid, a clipped value or an
all-zero ReLU is a mistake only when the target still depends on that op's output: then the
op's zero slope is what hides the dependence. When the target does not depend on it (the
op's output is multiplied by a zero loss weight, masked away, or the target sits at a
stationary point of it), the small gradient is the true one and there is nothing to report.

The probe moves the op's output a little, away from its limit (a sigmoid at 1 down, a dead
ReLU up: outside the op's range the next log or sqrt would be NaN), by a half and a full step,
and runs the recorded ops between it and the target again (the op callback kept their attrs
and input tensors, graph.py). Richardson's combination of the two slopes cancels the
second-order term, so a target at its minimum counts as flat. Probing the source itself
would not do: float32 rounds a saturated sigmoid flat on both sides of any small step. The
replay runs TensorFlow's kernels directly (`execute.quick_execute`), outside every tape and
unseen by the op callback, and only after a gradient already came back small, so its cost
is paid by suspicious gradients alone.

`source_moves` asks the same of the source itself, for an all-zero gradient no cause rule explained:
moved a little in a random direction, does the target change? If not, zero is the exact slope there
(a factor of 0, a mask, a minimum), and the report says so; if it does, zero is not the slope.
"""
from __future__ import annotations

import numpy as np

from gradtutor.evidence.cuts import SHAPE_ONLY
from gradtutor.evidence.recording import opfacts
from gradtutor.evidence.reading import paths
from gradtutor.evidence.reading.values import clip_mask, kept_value
from gradtutor.evidence.recording.tapes import tf_object
from gradtutor.protocol import Cause, Symptom

STEP = 1e-3  # relative to the op's largest output (at least 1)
FLAT = 1e-4  # a slope of the target below this (relative to the target's size, at least 1) is flat
RELATIVE_FLAT = 1e-5  # a change over the step below this share of the target is flat
ABSOLUTE_FLAT = 1e-12  # and below this, whatever the target's size (a target at exactly 0)
HALF = frozenset({"float16", "bfloat16"})  # a source or target of these is not probed (see source_moves)
WIDE = ("float64", "float32")  # what a half-precision path is run again in: the first whose kernels all exist
NARROWER = {"float64": HALF | {"float32"}, "float32": HALF}
WIDE_FLAT = 1e-10  # RELATIVE_FLAT for a replay in float64, whose rounding is about 1e-16 of the target
MAX_JOINS = 8  # joins of the source's terms tried for a cancellation, nearest the target first (each costs replays)
MAX_OPS = 500  # a longer path is not replayed (its cost would not be bounded); the evidence stands alone


def depends(graph, op, target) -> bool | None:
    """True when the target moves with `op`'s first output, False when it is flat there, None when unknown."""
    if op.values is None or not op.values[1] or target is None:
        return None
    output = op.values[1][0]
    value = kept_value(output)
    if value is None or value.dtype.kind != "f" or not value.size:
        return None
    into = _into_range(op, value)
    chain = _chain(graph, set(op.outputs), op.seq, target)
    if into is None or chain is None:
        return None
    rng = np.random.default_rng(0)  # never the script's own random state
    return _moves(graph, chain, op.outputs[:1], value, into * (0.5 + rng.random(value.shape)), target)


def partly_clipped(graph, op, target):
    """SATURATION for a clip (clip_by_value, or a maximum or minimum with a scalar bound) some of whose elements sit
    outside its bounds (with slope 0 there) when the target moves as they move back inside: the elements the target
    reads are the clipped ones (a log of a probability clipped at 1e-8, masked to the labelled class). A clip with
    nothing clipped, or whose clipped elements the target does not read, is no evidence (`values.evidence_at` takes
    a clip clipped everywhere without the probe)."""
    clipped = clip_mask(op.type, op.values[0]) if op.values is not None else None
    bounds = [kept_value(t) for t in op.values[0][1:3]] if clipped is not None else ()
    if clipped is None or any(b.size != 1 or b.dtype.kind != "f" for b in bounds):  # scalar float bounds only
        return None
    return Cause.SATURATION if clipped.any() and depends(graph, op, target) is True else None


def source_moves(graph, info, targets, source) -> tuple[bool | None, str | None]:
    """(moved, half): moved is True when the target changes as the source is moved a little (in a random direction:
    a source has no limit to move away from), False when it stays flat, None when the ops between cannot be run
    again. The source's value enters the target where it was recorded: the tensor itself, or each read of the
    variable. A path that ran in float16 or bfloat16 (mixed precision: float32 variables cast on the way) is run
    again in float64, where a small move does not round away (after eight sigmoids a kernel moves a float32 loss by
    less than float32 resolves); half is then that dtype: a target that moves in the wide replay while the gradient
    came back exactly 0 is evidence of underflow."""
    start = _start(graph, targets, source, info, half_ok=True)
    chain = start and _chain(graph, set(start[1]), min(node.seq for node in start[1]) - 1, start[0])
    if chain is None or not start:
        return None, None
    target, starts, value = start
    half = next((out.dtype.name for op in chain for out in op.outputs if out.dtype.name in HALF), None)
    if half is None and (target.dtype.name in HALF or starts[0].dtype.name in HALF):
        return None, None  # a float16 source read directly: nothing to widen on the way, and a small move rounds away
    return _moves(graph, chain, starts, value, _direction(value), target, widen=half is not None, relative=True), half


def exact_zero(graph, info, targets, source):
    """(the node to name, why) when an all-zero gradient that moved nothing at first order is the exact slope: the
    op where the source's terms cancel ("terms cancel"), or the target itself when moving the source changes it at
    second order only ("stationary": a minimum, as an L2 penalty at a weight of 0 is, or a saddle); None otherwise
    (the target does not take the source at all: a factor of 0, a mask, a dead path)."""
    join = cancels(graph, info, targets, source)
    if join is not None:
        return join, "terms cancel"
    start = _start(graph, targets, source, info)
    chain = start and _chain(graph, set(start[1]), min(node.seq for node in start[1]) - 1, start[0])
    if not start or chain is None:
        return None
    target, starts, value = start
    curved = _moves(graph, chain, starts, value, _direction(value), target, relative=True, second=True)
    return (target, "stationary") if curved else None


def cancels_beneath(graph, info, targets, source, cause, symptom) -> bool:
    """A saturation named for an all-zero gradient whose source's terms cancel (a siamese net's shared output bias, in
    the difference of its two outputs): zero is the exact slope whatever is clipped on the way, so no cause."""
    return cause == Cause.SATURATION and symptom == Symptom.ZEROS and cancels(graph, info, targets, source) is not None


def cancels(graph, info, targets, source):
    """The op where the source's terms cancel, or None: an all-zero gradient whose target takes the source through
    two or more terms joined by one op (a WGAN critic's mean(D(fake)) − mean(D(real)) and its output bias), each of
    which moves the target alone while together they leave it flat, so zero is the exact slope. Gradient calls on
    the way (a gradient penalty's) are held at what they returned: the terms are read around them."""
    start = _start(graph, targets, source, info)
    chain = start and _chain(graph, set(start[1]), min(node.seq for node in start[1]) - 1, start[0], hold=True)
    if not start or not chain:
        return None
    target, starts, value = start
    moved, joins = set(starts), []
    for op in chain:
        terms = list(dict.fromkeys(node for node in op.inputs if node in moved))
        if len(terms) >= 2:
            joins.append((op, terms))  # an op that joins terms of the source
        moved.update(op.outputs)
    direction = _direction(value)
    if not joins or _moves(graph, chain, starts, value, direction, target, relative=True) is not False:
        return None
    for join, terms in reversed(joins[-MAX_JOINS:]):  # nearest the target first (a loss adding up two terms of a
        # siamese distance that already cancelled its bias, farther back, in the difference of the twins)
        if all(_moves(graph, chain, starts, value, direction, target, relative=True,
                      hold={other for other in terms if other is not term}) for term in terms):
            return join
    return None


def _start(graph, targets, source, info, half_ok=False):
    """(the target's node, the nodes the source's value enters by, that value), or None when it cannot be moved. A read
    of the variable the tape did not record (a target computed before the tape from it too) is a constant to the
    gradient, and stays one here. half_ok: a float16 target or source too (the replay then widens the path)."""
    import tensorflow as tf

    source = tf_object(source)
    nodes = [graph.known(getattr(t, "handle", t) if isinstance(t, tf.Variable) else t) for t in targets]
    if len(nodes) != 1 or nodes[0] is None:
        return None  # several targets are summed by the tape: not replayed
    target = nodes[0]
    if not half_ok and (target.dtype.name in HALF or source.dtype.name in HALF):
        return None  # a small move rounds away in half precision (values.below_half_range speaks for these)
    if isinstance(source, tf.Variable):
        starts = _reads(graph.known(source.handle), target)
        starts = starts and [node for node in starts if node.op is not None and info in node.op.tapes]
        values = [_kept_output(node) for node in starts or ()]
    else:
        starts, values = [graph.known(source)], [kept_value(source)]
    if not starts or starts[0] is None:
        return None
    value = values[0]
    if value is None or value.dtype.kind != "f" or not value.size or \
            any(v is None or v.shape != value.shape or not np.array_equal(v, value) for v in values):
        return None  # a read after an assign sees another value: one move cannot stand for both
    return target, starts, value


def _direction(value):
    rng = np.random.default_rng(0)  # never the script's own random state
    return rng.choice([-1.0, 1.0], value.shape) * (0.5 + rng.random(value.shape))


def _reads(handle, target) -> list | None:
    """The reads of a variable's value the target was computed from; None when the target takes the variable some
    other way (a gather of its rows reads the handle itself, and cannot be given a moved value)."""
    if handle is None:
        return None
    reads = []
    for node in paths.ancestors([target], 0):
        op = node.op
        if op is not None and handle in op.inputs:
            if op.type != "ReadVariableOp":
                return None
            reads.append(node)
    return reads


def _kept_output(node):
    values = node.op.values
    if values is None or not values[1]:
        return None
    return kept_value(values[1][node.op.outputs.index(node)])


def _moves(graph, chain, starts, value, direction, target, widen=False, relative=False, hold=frozenset(),
           second=False) -> bool | None:
    """Replay the chain with every start node moved by a half and a full step along `direction`: does the target's
    sum move? (widen: every float op runs in float64, or in float32 where a kernel has no float64 one.)"""
    step = STEP * max(1.0, float(np.abs(value).max()))
    for wide in (WIDE if widen else (None,)):
        try:
            with graph.pausing():
                base, half, full = (_replay(chain, {node: value + t * step * direction for node in starts}, target,
                                            wide, hold) for t in (0.0, 0.5, 1.0))
            break
        except Exception:  # noqa: BLE001 - an op that cannot run again: no probe, the evidence stands alone
            base = half = full = None
    if base is None or half is None or full is None or not np.isfinite([base, half, full]).all():
        return None
    # Richardson: twice the slope over the half step minus the slope over the full step cancels the
    # term of second order, so a target at its minimum (only curvature moves it) reads as flat
    slope = 2 * (half - base) / (0.5 * step) - (full - base) / step
    # relative (the source itself, source_moves): the change over the step, weighed against the target's own size
    # (a loss of 1e-7 moving by 1e-11 moves), far above the rounding of it (about 1e-7 of it in float32, 1e-16 in
    # float64: a half-precision path run in float64 shows a slope that float32 would round away), with a floor for
    # a target at 0
    if not relative:  # an op's output (depends): the slope against the target's size, at least 1
        if abs(slope) > FLAT * max(1.0, abs(base)):
            return True
        # flat only where that can be measured: a target so large (a squared error of 6e9) that float32 rounds away
        # what a slope of 1 moves it over the step says nothing either way
        return None if np.spacing(np.float32(abs(base))) >= step else False
    share = WIDE_FLAT if wide == "float64" else RELATIVE_FLAT
    floor = max(share * abs(base), ABSOLUTE_FLAT)
    if second:  # flat at first order, yet changed over the step: curvature alone (a minimum), far above rounding
        return abs(slope) * step <= floor < min(abs(full - base), abs(half - base) * 4) / 16
    return bool(abs(slope) * step > floor)


def _into_range(op, value):
    """+1 / -1 per element: the way the op's output can move from the limit it sits at (None: unknown op)."""
    if op.type in ("Relu", "Relu6", "Maximum", "Exp"):  # (an exp that underflowed to 0)
        return np.ones_like(value)
    if op.type == "Minimum":
        return -np.ones_like(value)
    if op.type in ("Sigmoid", "Softmax"):
        return np.where(value >= 0.5, -1.0, 1.0)
    if op.type == "Tanh":
        return np.where(value >= 0, -1.0, 1.0)
    if op.type == "ClipByValue":
        low = kept_value(op.values[0][1])
        return None if low is None else np.where(value <= low, 1.0, -1.0)
    return None


def _chain(graph, starts: set, after: int, target, hold=False):
    """The recorded ops after op number `after` and up to the target that take a value computed from the `starts`
    nodes, in order. hold: a gradient call on the way is left out, as if it returned what it did."""
    if target in starts:
        return []
    later = []
    for item in reversed(graph.log):  # only the ops after the start: read from the end of the log
        if item.seq <= after:
            break
        if len(later) > 20 * MAX_OPS:
            return None
        if item.seq <= target.seq and hasattr(item, "inputs"):
            later.append(item)
    feeds_target = paths.ancestors([target], after)  # an assign or a metric update is never run again
    moved = set(starts)
    chain = []
    for item in reversed(later):
        if not any(node in moved for node in item.inputs) or not any(n in feeds_target for n in item.outputs) \
                or hold and item.type == "gradient" or item.type in SHAPE_ONLY:
            continue  # (a shape read does not move: run again, `tf.random.normal(tf.shape(mu))` would draw anew)
        if item.values is None or item.attrs is None or opfacts.gradient_kind(item.type) == "python" \
                or item.type == "gradient" or len(chain) >= MAX_OPS:
            return None  # a step that cannot be run again (its tensors were let go, or it is Python)
        chain.append(item)
        moved.update(item.outputs)
    return chain if target in moved else None


def _replay(chain, moved: dict, target, wide=None, hold=frozenset()):
    """Run the chain again with each node of `moved` replaced by its value; the sum of the new target (what
    tape.gradient differentiates), or None. wide: the float every narrower float value and type attribute becomes.
    hold: nodes whose recorded values are kept (one term of a sum moved alone)."""
    import tensorflow as tf
    from tensorflow.python.eager import context, execute

    ctx = context.context()
    narrow = NARROWER.get(wide, frozenset())
    new = {node: tf.constant(value, dtype=wide if node.dtype.name in narrow else node.dtype)
           for node, value in moved.items()}
    for op in chain:  # quick_execute records nothing on a tape (the op wrappers call record_gradient)
        inputs = [tensor if node in hold else new.get(node, tensor) for node, tensor in zip(op.inputs, op.values[0])]
        attrs = op.attrs
        if wide:
            inputs = [tf.cast(t, wide) if t.dtype.name in narrow else t for t in inputs]
            attrs = opfacts.widened_attrs(op.type, attrs, narrow, wide)
        outputs = execute.quick_execute(op.type, len(op.outputs), inputs, attrs, ctx)
        new.update(zip(op.outputs, outputs))
    result = new.get(target)
    return None if result is None else np.sum(kept_value(result), dtype=np.float64)
