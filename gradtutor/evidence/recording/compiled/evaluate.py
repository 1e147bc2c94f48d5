"""Values for the ops of a `tf.function` that ran as one call op under an eager tape, asked for after the fact.

Called eagerly under a tape, a function runs as one call op: its own ops were recorded when it was traced
(links.link_eager_call links them into the path), symbolic, without the values an eager op keeps. When the
reading looks for where a NaN on such a path was born (reading.values.birth), it asks for them here: the
function's graph is pruned to those ops (TensorFlow's wrap_function, as a SavedModel's signatures are) and
run once more from the values the call was given, and each op is given the values an eager op would have
kept. A graph with an op that has effects (an assign, a print, a random draw's state) is never run again:
a second run would repeat them, so those ops stay without values and the NaN's birth stays unknown.
"""
from __future__ import annotations

from gradtutor.evidence.recording.compiled.snapshot import has_effects

MAX_OPS = 500  # a longer function is not run again (its cost would not be bounded)
# ops that change state a second run would change again: a variable's value, a random generator's position
WRITES_STATE = ("Assign", "Scatter", "ResourceApply", "ResourceSparseApply", "RngReadAndSkip", "RngSkip")


def fill(graph, ops) -> bool:
    """Give the symbolic ops among `ops` (a path, in the order it ran) the values of a second run of their
    function from the inputs its linked call op kept. True when some ops were given values."""
    calls = [op for op in ops if op.type == "IdentityN" and op.values is not None]  # linked calls (links.py)
    symbolic = [op for op in ops if op.values is None and op.outputs]
    if not calls or not symbolic or len(symbolic) > MAX_OPS:
        return False
    filled = False
    for call in calls:
        try:
            with graph.pausing():
                filled = _fill_call(call, symbolic) or filled
        except Exception:  # noqa: BLE001 - a graph that cannot be pruned or run: its ops stay without values
            continue
    return filled


def _fill_call(call, symbolic) -> bool:
    from tensorflow.python.eager import wrap_function

    outputs = [node.ref() for node in call.inputs]  # a linked call's inputs are its function's outputs
    func_graph = getattr(outputs[0], "graph", None) if outputs and outputs[0] is not None else None
    if func_graph is None or len(func_graph.inputs) != len(call.values[0]):
        return False
    if any(has_effects(op.type) or op.type.startswith(WRITES_STATE) for op in func_graph.get_operations()):
        return False
    mine = [op for op in symbolic if _symbolic(op.outputs[0].ref(), func_graph)]
    captured = {id(internal) for _, internal in func_graph.captures}
    feeds = [(tensor, given) for tensor, given in zip(func_graph.inputs, call.values[0]) if id(tensor) not in captured]
    values = {id(tensor): given for tensor, given in zip(func_graph.inputs, call.values[0])}  # a placeholder's value
    fetches: dict = {}
    for op in mine:
        for node in (*op.inputs, *op.outputs):
            tensor = node.ref()
            if _symbolic(tensor, func_graph) and id(tensor) not in values:
                fetches.setdefault(id(tensor), tensor)
    if not fetches:
        return False
    wrapped = wrap_function.WrappedFunction(func_graph, variable_holder=wrap_function.VariableHolder(
        share_variables=True))
    pruned = wrapped.prune(feeds=[tensor for tensor, _ in feeds], fetches=list(fetches.values()))
    values.update(zip(fetches, pruned(*[given for _, given in feeds])))
    for op in mine:
        pick = [values.get(id(node.ref()), node.ref()) for node in op.inputs]
        made = [values.get(id(node.ref())) for node in op.outputs]
        if all(value is not None for value in made):
            op.values = (tuple(pick), tuple(made))
    return True


def _symbolic(tensor, func_graph) -> bool:
    return tensor is not None and getattr(tensor, "graph", None) is func_graph
