"""A `tf.function` called inside a trace, or called eagerly under a tape, runs as one call op: its ops are linked
through it, so that a path (and a cut) inside the called function is seen as if its ops were inline. A while_loop
traced in a function (a Keras RNN's loop over time steps) runs as one While op, linked through its body alike."""
from __future__ import annotations

from gradtutor.evidence.recording.frames import user_frame

CALLS = ("PartitionedCall", "StatefulPartitionedCall")  # the one op a function call runs as
LOOPS = ("While", "StatelessWhile")  # the one op a traced while_loop runs as


def link_nested(tracing, result) -> None:
    """A function called inside a trace becomes one call op, which reaches no op callback: its outputs are
    linked to the inner graph's outputs and the inner graph's inputs to the call's inputs, so a path (and
    a cut) inside the inner function is seen as if its ops were inline."""
    import tensorflow as tf

    graph = tracing.record.graph
    for output in tf.nest.flatten(result):
        op = getattr(output, "op", None)
        if op is None or op.type not in CALLS \
                or graph.known(output) is not None:
            continue
        try:
            inner = op.graph._get_function(op.get_attr("f").name).graph
        except Exception:  # noqa: BLE001 - not a function TensorFlow keeps a graph of: the output stays unlinked
            continue
        for placeholder, given in zip(inner.inputs, op.inputs):
            node = graph.known(placeholder)
            if node is not None and node.op is not None and node.op.type == "Placeholder":
                node.op.type, node.op.inputs = "Identity", (tracing.node_of(graph, given, node.frame),)
        frame = user_frame()
        for outer, inner_output in zip(op.outputs, inner.outputs):
            if graph.known(outer) is None:
                graph.add_step("Identity", [inner_output], [outer], frame)

def link_eager_call(tracing, function, args, kwargs, result, before) -> None:
    """Called eagerly under a tape, a function runs as one call op, whose gradient is the traced graph's: when it
    was traced in this very call (its ops recorded under this tape), the call op is linked through the graph
    as in `link_nested`, so a cut inside the function is seen at its own line, not at the call."""
    import tensorflow as tf

    graph = tracing.record.graph
    nodes = [graph.known(t) for t in tf.nest.flatten(result) if tf.is_tensor(t)]
    op = next((n.op for n in nodes if n is not None and n.op is not None and _is_call(n.op.type)), None)
    if op is None:
        return
    try:
        inner = function.get_concrete_function(*args, **kwargs).graph
    except Exception:  # noqa: BLE001 - no graph to look into: the call op stays one step
        return
    outputs = [graph.known(t) for t in inner.outputs]
    if not outputs or any(n is None or n.seq <= before for n in outputs):
        return  # traced before this call: its ops were recorded under other tapes
    for placeholder, given in zip(inner.inputs, op.inputs):
        node = graph.known(placeholder)
        if node is not None and node.op is not None and node.op.type == "Placeholder":
            node.op.type, node.op.inputs = "Identity", (given,)
    op.type, op.inputs = "IdentityN", tuple(outputs)


def _is_call(op_type: str) -> bool:
    """The op a function call runs as: a call op, or under a tape the function's forward half (__forward_f_12)."""
    return op_type in CALLS or op_type.startswith(("__forward_", "__inference_"))


def link_while(graph, op, operation) -> None:
    """A While op just recorded (`op`, of the graph `operation` is in): its body's loop inputs are linked to the op's
    inputs, and its outputs to the body's outputs, so a path from a weight the body reads (an LSTM's kernel, captured
    by the body) goes through the loop's ops to the target, as the gradient does, not through the op's handle input
    (which would read as a write to state)."""
    try:
        body = operation.graph._get_function(operation.get_attr("body").name).graph
    except Exception:  # noqa: BLE001 - no body to look into: the op stays one step
        return
    outputs = [graph.known(t) for t in body.outputs]
    if len(outputs) != len(op.outputs) or any(node is None for node in outputs):
        return
    for placeholder, given in zip(body.inputs, op.inputs):
        node = graph.known(placeholder)
        if node is not None and node.op is not None and node.op.type == "Placeholder":
            node.op.type, node.op.inputs = "Identity", (given,)
    op.type, op.inputs = "IdentityN", tuple(outputs)
