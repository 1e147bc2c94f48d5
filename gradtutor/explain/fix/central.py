"""Central differences for a repaired gradient: replay the recorded ops from the sources to the target.

At the repaired `tape.gradient` call of the re-run, the sources are moved along one random
±1 direction by ±h and ±h/2, the ops the op callback recorded between them and the target
are run again on the moved values (in float64 where the kernels allow, at three step sizes) (TensorFlow's kernels directly, outside every tape, as the
saturation probe does), and Richardson's combination of the two central differences is
compared with the gradient's projection on the same direction. Only where the sources hold at
most MAX_ELEMENTS values; a path that cannot be replayed (an op whose tensors were let go, a
Python step, a variable read other than by ReadVariableOp) gives no number rather than a guess. A
`tf.stop_gradient`'s output keeps its recorded value in the replay, as it is a constant to the gradient (an
actor-critic loss's advantage).
"""
from __future__ import annotations

import numpy as np

from gradtutor.evidence.recording import opfacts
from gradtutor.evidence.recording.custom_gradients import CUSTOM_STEP
from gradtutor.evidence.reading import paths
from gradtutor.evidence.reading.values import kept_value

MAX_ELEMENTS = 10_000
TOLERANCE = 1e-3
STEPS = (1e-3, 1e-5, 1e-7)  # relative to the sources' largest value (at least 1); float32 rounding favours a
# long step, a ReLU's kink or a sigmoid's curvature a short one: the error is the one at the best of them
MAX_OPS = 2_000
CUSTOM = ("gradient", CUSTOM_STEP)  # a gradient call's own step; a tf.custom_gradient function's, when one was made
HELD = ("StopGradient", "PreventGradient")  # their output is a constant to the gradient, so the replay holds it too
# the rounding of a replayed value: within NOISE machine epsilons of the magnitudes it was summed from (a chain of
# ops each rounding once, its errors adding up): below that, a central difference cannot tell a slope from zero
NOISE = 16
NARROW = frozenset({"float32"})  # what the replay widens to float64


def error(graph, target, sources, gradients, custom: bool = True) -> float | None:
    """|central difference − gradient · d| / ‖gradient‖ for a random ±1 direction d (None: no replay). `custom`
    False: None too where the path crosses a tf.custom_gradient's outputs (a patch's verdict: the program chose that
    gradient; a check of the custom gradient itself measures it).

    ‖gradient‖ is the typical size of gradient · d, so the error is relative to the gradient, not to
    one direction's projection of it, which can be near zero by chance. A gradient of exactly zero (the double
    where's at 0 of a norm or a sinc) is judged by the rounding noise of the target's values instead (`judged`)."""
    import tensorflow as tf

    targets, sources, gradients = (tf.nest.flatten(x) for x in (target, sources, gradients))
    target_node = graph.known(targets[0]) if len(targets) == 1 else None
    if target_node is None or any(g is None or not hasattr(g, "_numpy") for g in gradients) or len(
            gradients) != len(sources):
        return None
    starts, values = {}, []
    for index, source in enumerate(sources):
        found = _starts(graph, source, target_node)
        if found is None:
            return None
        nodes, value = found
        starts.update((node, index) for node in nodes)
        values.append(value)
    if not starts or sum(v.size for v in values) > MAX_ELEMENTS or any(v.dtype.kind != "f" for v in values):
        return None
    chain = _chain(graph, set(starts), target_node)
    if chain is None or not custom and any(node in graph.custom for op in chain for node in op.outputs):
        return None  # a tf.custom_gradient's gradient is the program's choice there (a reversal's -dy), not the slope
    rng = np.random.default_rng(0)  # never the script's own random state
    directions = [rng.choice([-1.0, 1.0], size=v.shape) for v in values]
    arrays = [np.asarray(g._numpy(), dtype=np.float64) for g in gradients]
    along = float(sum(np.sum(g * d) for g, d in zip(arrays, directions)))
    size = float(np.sqrt(sum(np.sum(g * g) for g in arrays)))  # what |gradient · d| is for a typical ±1 direction
    scale = max(1.0, max(float(np.abs(v).max(initial=0.0)) for v in values))

    def moved(t):
        return {node: values[i] + t * directions[i] for node, i in starts.items()}

    try:
        with graph.pausing():
            found = slopes(lambda t: _replay(chain, moved(t), target_node), scale)
    except Exception:  # noqa: BLE001 - an op that cannot run again: no number
        return None
    return None if found is None else judged(found[0], found[1], along, size)


def slopes(evaluate, scale: float) -> tuple[list[float], float] | None:
    """Richardson's combination of two central differences of t -> f(t) at 0, one per step of STEPS (longest first),
    and the rounding noise of the first: what the difference of two evaluations at ±h can be from rounding alone.

    `evaluate(t)` is (f(t), the sum of the magnitudes f(t) was summed from, the machine epsilon it was computed
    in), or None when it cannot be computed. Pure numbers: no TensorFlow."""
    here = evaluate(0.0)
    if here is None:
        return None
    centrals, noise = [], 0.0
    for step in STEPS:
        slope = []
        for h in (step * scale, step * scale / 2):
            up, down = evaluate(h), evaluate(-h)
            if up is None or down is None:
                return None
            slope.append((up[0] - down[0]) / (2 * h))
            if not centrals and h == step * scale:
                # each value is off by about eps times the magnitudes it sums, plus what rounding x ± h (eps times
                # the sources' scale) moves it by at the one-sided slope seen (a cone at 0 has one either side)
                sides = max(abs(up[0] - here[0]), abs(down[0] - here[0])) / h
                noise = NOISE * max(up[2], down[2], here[2]) * (max(up[1], down[1], here[1]) + sides * scale) / h
        centrals.append((4 * slope[1] - slope[0]) / 3)  # Richardson: the h² terms cancel
    return centrals, noise


def judged(centrals: list[float], noise: float, along: float, size: float) -> float:
    """The error compared with TOLERANCE: |central − gradient · d| / ‖gradient‖ at the best step. A gradient of exactly
    zero has no size to be relative to: then the longest step's central difference must itself be zero within its
    rounding noise (`slopes`), and the error is |central| / (noise / TOLERANCE) — at most TOLERANCE exactly
    when it is. Only the longest step: at a short one, rounding can make f(x + h) and f(x − h) equal in float32 and
    hide a slope that is not zero."""
    if size > 0:
        return min(abs(central - along) / size for central in centrals)
    return abs(centrals[0]) * TOLERANCE / max(noise, np.finfo(np.float64).tiny)


def _starts(graph, source, target_node):
    """The nodes whose values the target was computed from for this source, and the source's value."""
    import tensorflow as tf

    variable = source if isinstance(source, tf.Variable) else getattr(source, "value", None)
    if not isinstance(variable, tf.Variable):
        node = graph.known(source)
        value = kept_value(source)
        return None if node is None or value is None else ([node], value)
    handle = graph.known(variable.handle)
    if handle is None:
        return None
    reads, feeds = [], paths.ancestors([target_node], 0)
    for op in graph.log:
        if handle in getattr(op, "inputs", ()) and any(n in feeds for n in op.outputs):
            if op.type != "ReadVariableOp" or op.values is None:
                return None  # read another way (a gather, an assign): moving the reads would not move the target
            reads.append(op.outputs[0])
    if not reads:
        return None
    value = kept_value(reads[0].ref()) if reads[0].ref() is not None else None
    return None if value is None else (reads, value)


def _chain(graph, starts: set, target):
    """The recorded ops between the starts and the target that take a value computed from them, in order."""
    first = min(node.seq for node in starts)
    feeds = paths.ancestors([target], first)
    moved, chain = set(starts), []
    for item in graph.log:
        if item.seq <= first or item.seq > target.seq or not hasattr(item, "inputs"):
            continue
        if not any(node in moved for node in item.inputs) or not any(n in feeds for n in item.outputs):
            continue
        if item.type in HELD:  # a value the gradient treats as a constant keeps its recorded value
            continue
        if item.values is None or item.attrs is None or opfacts.gradient_kind(item.type) == "python" \
                or item.type in CUSTOM or len(chain) >= MAX_OPS:
            return None
        chain.append(item)
        moved.update(item.outputs)
    return chain if target in moved else None


def _replay(chain, start_values: dict, target):
    """(The target's sum, the sum of its magnitudes, the epsilon it was computed in) with the starts moved: the chain
    run again in float64 where its kernels allow."""
    try:
        return _run(chain, start_values, target, wide=True)
    except Exception:  # noqa: BLE001 - an op without a float64 kernel: the recorded precision
        return _run(chain, start_values, target, wide=False)


def _run(chain, start_values: dict, target, wide: bool):
    import tensorflow as tf
    from tensorflow.python.eager import context, execute

    ctx = context.context()
    new = {node: tf.constant(value, dtype=tf.float64 if wide and node.dtype == tf.float32 else node.dtype)
           for node, value in start_values.items()}
    for op in chain:
        inputs = [new.get(node, tensor) for node, tensor in zip(op.inputs, op.values[0])]
        attrs = op.attrs
        if wide:
            inputs = [tf.cast(t, tf.float64) if t.dtype == tf.float32 else t for t in inputs]
            attrs = opfacts.widened_attrs(op.type, attrs, NARROW, "float64")
        outputs = execute.quick_execute(op.type, len(op.outputs), inputs, attrs, ctx)
        new.update(zip(op.outputs, outputs))
    result = new.get(target)
    if result is None:
        return None
    value = np.asarray(kept_value(result), dtype=np.float64)
    eps = float(np.finfo(np.float64 if wide else target.dtype.as_numpy_dtype).eps)
    return float(np.sum(value)), float(np.sum(np.abs(value))), eps
