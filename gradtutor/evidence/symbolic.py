"""Why `tf.gradients` in a graph (a `tf.function` being traced, a TF1 `tf.Graph`) returned None for a source.

A graph holds every op TensorFlow built, with its inputs and the Python stack that built it, so the None is
read from the graph itself when the call returns: a source of an integer dtype; a target that the source
reaches only through a variable's write and a later read (`scatter_add`, `assign`: state the gradient does
not go through); a target that no data path from the source reaches (not used: a variable the function never
read, a while_loop body's other loop variable); or an op on every path whose gradient does not flow (an argmax,
a cast to integers, a stop_gradient). A graph has no values until it runs, so this says nothing of NaN or zeros.
"""
from __future__ import annotations

from gradtutor.evidence import cuts
from gradtutor.evidence.recording.frames import GENERATED, converted_from, is_user_file, user_frame
from gradtutor.protocol import Cause, Symptom

MAX_OPS = 20000  # a larger graph is not walked (the time would not be bounded): no cause is named
# ops that write a variable (resource) from their other inputs
WRITING = ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "ResourceScatter", "ResourceApply",
           "ResourceSparseApply", "ResourceStridedSliceAssign")
CALLS = ("PartitionedCall", "StatefulPartitionedCall")


def note_nones(record, args, kwargs, result) -> None:
    """A finding for each None that tf.gradients(ys, xs, ...) returned in a graph, where the graph names its cause."""
    import tensorflow as tf

    targets = tf.nest.flatten(kwargs.get("ys", args[0] if args else None))
    sources = tf.nest.flatten(kwargs.get("xs", args[1] if len(args) > 1 else None))
    for source, gradient in zip(sources, tf.nest.flatten(result) if isinstance(result, (list, tuple)) else ()):
        try:
            found = why_none(targets, source) if gradient is None and tf.is_tensor(source) else None
        except Exception:  # noqa: BLE001 - a graph this reading does not know: no cause, the program goes on
            found = None
        if found is None:
            continue
        frame = user_frame()
        record.add("tf.gradients", frame, [_name(source)], found[0], built_at(found[1]) or frame, Symptom.NONE, {})


def _name(source) -> str:
    return str(getattr(source, "path", None) or source.name).split(":")[0]  # a Keras variable's path is its name


def why_none(targets: list, source):
    """(cause, the op to blame) for a None tf.gradients returned for `source`, or None when the graph names none."""
    import tensorflow as tf

    dtype = tf.as_dtype(source.dtype)  # a Keras variable's is a string
    if dtype.is_integer or dtype.is_bool:
        return Cause.INTEGER_PATH, getattr(source, "op", None)
    start = _in_this_graph(getattr(source, "handle", source))  # a variable is read, and written, through its handle
    if start is None:  # a variable no function being traced ever read: nothing computed here depends on it
        return Cause.NOT_USED, None
    reached = _consumers(start)
    if reached is None:
        return None
    wanted = {t.op for t in targets}
    behind = _ancestors(wanted)
    if behind is None:
        return None
    if not any(op in reached for op in wanted):
        write = next((op for op in reached if op.type.startswith(WRITING) and op.inputs
                      and _reads(behind, op.inputs[0])), None)
        # no data path at all: the target was computed without this source (a while_loop body's loop
        # variables are separate tensors, whatever they started from)
        return (Cause.STATE_BREAKS_PATH, write) if write is not None else (Cause.NOT_USED, None)
    for op in sorted(reached & behind, key=lambda op: getattr(op, "_id", 0)):  # in the order built: the first cut
        if op.type.startswith(WRITING):  # the value written into a variable: what is read back has no path
            return Cause.STATE_BREAKS_PATH, op
        if op.type in CALLS:  # a nested tf.function: its body holds the cut, if any
            inside = _inside_call(op, reached, start)
            if inside is not None:
                return inside
            continue
        stops = cuts.stops_gradient(op)  # the same rule as a tape's recorded ops (an op of shapes cuts nothing)
        if stops is not None and stops != "shape-only":
            return stops, op
    return None


def _inside_call(op, reached, start):
    """The cause inside the body of a function call op (a tf.function called by one being traced) for the inputs
    the source reaches, or None."""
    try:
        body = op.graph._get_function(op.get_attr("f").name).graph
    except Exception:  # noqa: BLE001 - a function with no Python graph (loaded from a SavedModel): not looked into
        return None
    for index, given in enumerate(op.inputs):
        if (given.op in reached or given is start) and index < len(body.inputs):
            found = why_none(list(body.outputs), body.inputs[index])
            if found is not None and found[0] != Cause.NOT_USED:
                return found
    return None


def _in_this_graph(tensor):
    """`tensor` as the graph being built sees it: a variable's handle (an eager tensor), or a tensor of an outer
    graph, read in a function being traced (a tf.function, a while_loop body) is the placeholder each function
    on the way captured it as; None if one of them did not capture it (nothing there reads it)."""
    import tensorflow as tf

    if not tf.is_tensor(tensor):
        return tensor
    home = tensor.graph if tf.is_symbolic_tensor(tensor) else None
    functions, graph = [], tf.compat.v1.get_default_graph()
    while graph is not home and getattr(graph, "building_function", False):
        functions.append(graph)
        graph = getattr(graph, "outer_graph", None)
    if home is not None and graph is not home:  # not a graph around this one: walked as it is
        return tensor
    for function in reversed(functions):  # the outermost captured it first
        tensor = next((inner for outer, inner in function.captures if outer is tensor), None)
        if tensor is None:
            return None
    return tensor


def _consumers(source):
    """The ops computed from `source` by data, or None for a graph too large to walk."""
    return cuts.walk(source.consumers(), lambda op: [consumer for out in op.outputs for consumer in out.consumers()],
                     MAX_OPS)


def _ancestors(ops):
    """The ops `ops` were computed from (themselves included), or None for a graph too large to walk."""
    return cuts.walk(ops, lambda op: [t.op for t in op.inputs], MAX_OPS)


def _reads(ops, handle) -> bool:
    """Does one of `ops` read the variable whose handle is `handle` (a ReadVariableOp, an embedding's gather)?"""
    return any(not op.type.startswith(WRITING) and any(t is handle for t in op.inputs) for op in ops)


def built_at(op):
    """(file, line) of the user's line that built the op (autograph's generated lines mapped back), or None."""
    try:
        frames = list(op.traceback) if op is not None else []
    except Exception:  # noqa: BLE001 - an op without a stack (imported from a GraphDef)
        return None
    for frame in reversed(frames):
        if is_user_file(frame.filename):
            return frame.filename, frame.lineno
        if GENERATED in frame.filename:
            origin = converted_from(frame.filename, frame.lineno)
            if origin is not None and is_user_file(origin[0]):
                return origin
    return None
