"""Walking back from a gradient's target to where its paths from a source are cut.

An op cuts a path when TensorFlow's gradient registry gives it no gradient (stop_gradient, round, argmax,
comparisons, a Python function: gradtutor.evidence.recording.opfacts) or when it turns floats into integers; ops
that read only a tensor's shape carry no value to cut. The walk goes over the ops a tape recorded (the reading's
op graph: gradtutor.evidence.reading.paths) from the target back, nearest the target first.
"""
from __future__ import annotations

from gradtutor.evidence.recording import opfacts
from gradtutor.protocol import Cause

SHAPE_ONLY = frozenset({"Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike", "Fill", "Range"})
KIND_CAUSE = {"stop": Cause.STOP_GRADIENT, "python": Cause.LEAVES_TENSORFLOW, "none": Cause.NO_GRADIENT_OP,
              "zero": Cause.NO_GRADIENT_OP, "missing": Cause.NO_GRADIENT_OP}


def cuts_back(target_nodes, source_nodes) -> tuple[bool, list]:
    """Walk back from the targets through the ops a tape recorded: is a source reached through ops whose gradient
    flows? And the ops that cut a path the source had, nearest the target first, as (cause id, whether the op's
    output is a mask, the op's frame)."""
    frontier, seen, reached, cuts = list(target_nodes), set(), False, []
    while frontier:  # breadth first: the cut nearest the target comes first
        following = []
        for node in frontier:
            if node in source_nodes:
                reached = True
            if node in seen or node in source_nodes:
                continue
            seen.add(node)
            op = node.op
            if op is None or not op.tapes:  # made before any tape recorded, or not by an op: the walk ends here
                continue
            stops = stops_gradient(op)
            if stops is None:
                following.extend(op.inputs)
            elif stops != "shape-only" and _upstream(op.inputs, source_nodes):
                cuts.append((stops, all(out.dtype.is_bool for out in op.outputs), op.frame))
        frontier = following
    return reached, cuts


def bypassed(target_nodes, source_nodes):
    """A test for the ops on one path from the source: is this one a cut that another path from the source goes
    around to the targets (an argmin on one branch, where every branch then meets a round)? Then it is not where the
    gradient was lost. An op that does not cut: False."""
    def around(op) -> bool:
        return stops_gradient(op) not in (None, "shape-only") and _upstream(target_nodes, source_nodes, op)

    return around


def _upstream(nodes, source_nodes, avoiding=None) -> bool:
    """Is a source among what `nodes` were computed from by recorded ops (not through the op `avoiding`)?"""
    stack, seen = list(nodes), set()
    while stack:
        node = stack.pop()
        if node in source_nodes:
            return True
        if node in seen:
            continue
        seen.add(node)
        if node.op is not None and node.op.tapes and node.op is not avoiding:
            stack.extend(node.op.inputs)
    return False


def stops_gradient(op) -> Cause | str | None:
    """The cause id of an op through which no gradient reaches its float inputs; None when it flows, "shape-only"
    for an op that reads only a tensor's shape."""
    if op.type in SHAPE_ONLY:
        return "shape-only"
    if op.type in ("gradient", "custom_gradient"):  # steps gradtutor adds: a gradient and a custom gradient flow
        return None
    kind = opfacts.gradient_kind(op.type)
    if kind in KIND_CAUSE:
        return KIND_CAUSE[kind]
    floats_in = any(node.dtype.is_floating for node in op.inputs)
    if floats_in and op.outputs and all(out.dtype.is_integer for out in op.outputs):
        return Cause.INTEGER_PATH  # a cast (or any op) from floats to integers: integers carry no gradient
    return None


def walk(start, following, limit: int):
    """Everything reached from `start` by `following` (`start` included), or None past `limit` of them (a graph too
    large to walk in bounded time)."""
    seen, frontier = set(), list(start)
    while frontier:
        item = frontier.pop()
        if item in seen:
            continue
        seen.add(item)
        if len(seen) > limit:
            return None
        frontier.extend(following(item))
    return seen


def integers_left(graph, reached, computed_from):
    """The first exit of integers derived from the source (an argmax's tokens given to np.asarray, .numpy()) after
    which the target was computed from a value no op made (`computed_from(seq)`: the nodes the target was computed
    from since that op count, paths.ancestors): what came back (the tokens padded in NumPy, decoded to text and
    encoded again) is presumed made from what left, as for a float exit (paths.descendants), and the path ends at the
    op that turned the values into integers. None when there is none."""
    for left in (item for item in graph.integer_exits if item.node in reached):
        if any(node.op is None and node.seq > left.seq for node in computed_from(left.seq)):
            return left
    return None
