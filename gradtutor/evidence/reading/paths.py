"""Walk what ran: which tensors depend on a source, by data, through state or through a value that left TensorFlow.

`descendants` scans the op log forwards from the source. A tensor depends on it by data when an op took it as input;
through state when an op wrote a value derived from it into a resource (a variable's `assign`, an iterator fed by
`tf.data`) and a later op read that resource; through an exit when it left TensorFlow (`.numpy()`, `float()`, …) and a
later op took a tensor no op made (a constant made from numpy or Python values) at a line the value's names reach.
Each reached node keeps the node it came from, so one path back to the source can be read.
"""
from __future__ import annotations

import re

from gradtutor.evidence.cuts import walk
from gradtutor.evidence.source_lines import carries
from gradtutor.evidence.recording import opfacts
from gradtutor.evidence.recording.graph import Exit

# ops whose outputs depend on their input's shape alone, never its values: no path of the source goes through them
SHAPE_READERS = frozenset({"Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike"})


class Reach:
    """How a node was reached: from `parent` by `op`; `via` is None (data) or ("state"|"exit", op or Exit)."""

    __slots__ = ("op", "parent", "through_gradient", "via")

    def __init__(self, parent, op, via, through_gradient):
        self.parent, self.op, self.via, self.through_gradient = parent, op, via, through_gradient


def descendants(graph, source_node, updates=False, gradients=True) -> dict:
    """Every node that depends on the source, each with how it was reached. A value reached through a gradient call
    written into a variable (an optimizer's update) is a path only with `updates`; through a gradient call's result
    at all only with `gradients` (a derivative of the source's result need not read the source: a PINN's du/dx)."""
    reached = {source_node: Reach(None, None, None, False)}
    exits = []
    for item in list(graph.log):
        if item.seq < source_node.seq:
            continue
        if isinstance(item, Exit):
            if item.node in reached:
                exits.append(item)
            continue
        if item.type in SHAPE_READERS and not _value_sized(item, reached) or not gradients and item.type == "gradient":
            continue  # tf.zeros_like(x) is zeros whatever x holds
        # a boolean mask (x > 0) picks values and carries none: the op depends on the source through its values
        # first, a value back from outside TensorFlow next, and only then through the mask; a gradient call's results
        # on its sources only through its targets (a source the target does not read changes no gradient)
        inputs = item.inputs[:item.attrs["targets"]] if item.type == "gradient" and item.attrs else item.inputs
        values = [node for node in inputs if not node.dtype.is_bool]
        hit = _strongest(values, reached) or exits and _fresh_constant(item, exits, reached, graph.fed) or None
        if hit is None and len(values) < len(inputs):
            hit = _strongest([node for node in inputs if node.dtype.is_bool], reached)
        if hit is None:
            continue
        reach = reached[hit]
        through = reach.through_gradient or item.type == "gradient"
        for node in item.outputs:
            if node not in reached:
                reached[node] = Reach(hit, item, reach.via, through)
        if (not through or updates and item.type != "gradient") and not hit.is_resource and item.type not in FORWARDS:
            for node in item.inputs:  # a value derived from the source is written into a resource
                if node.is_resource and node not in reached:
                    reached[node] = Reach(hit, item, reach.via or ("state", item), False)
    return reached


FORWARDS = frozenset({"Identity", "IdentityN"})  # handed a resource beside the value, they pass both on, writing none
RANK = {None: 0, "state": 1, "exit": 2}  # a path by data is the surest evidence, one through an exit the least


def _strongest(inputs, reached):
    """The input the op is taken to depend on the source through: by data before through state, before an exit
    (a constant first seen after an exit is only presumed to be made from the value that left)."""
    best = None
    for node in inputs:
        reach = reached.get(node)
        if reach is not None and (best is None or RANK[reach.via and reach.via[0]] < RANK[best[1]]):
            best = (node, reach.via and reach.via[0])
            if best[1] is None:
                break
    return best[0] if best else None


def _fresh_constant(op, exits, reached, fed=()):
    """An input no op made, first seen by this op after a value derived from the source left TensorFlow (not `fed`) at
    a line that value can reach by the names the code assigns (source_lines.carries: not a copy kept to print)."""
    for node in (n for n in op.inputs if n.op is None and n.seq > exits[0].seq and n not in fed):
        last = next((e for e in reversed(exits) if e.seq < node.seq and carries(e.frame, op.frame) is not False), None)
        if last is not None and not node.is_resource and node.dtype.name != "variant":
            reached[node] = Reach(last.node, None, ("exit", last), False)
            return node
    return None


def exits_before(graph, reached, node):
    """The last exit of a value derived from the source before `node` was first seen (None if there is none)."""
    found = None
    for item in graph.log:
        if item.seq > node.seq:  # an exit counts the op sequence up; a node first seen right after it shares its number
            break
        if isinstance(item, Exit) and item.node in reached:
            found = item
    return found


def reentries(graph, reached, since: int) -> list:
    """[(constant node, Exit)]: a value derived from the source left TensorFlow and, at the same line, a tensor no op
    made came back in (`np.sin(x.numpy()) * x`): a term the tape sees as a constant. Only at the exit's own line,
    so a value printed or logged earlier does not make every later constant suspect."""
    exits, found = {}, []
    for item in graph.log:
        if item.seq <= since:
            continue
        if isinstance(item, Exit):
            if item.node in reached and item.frame is not None:
                exits[item.frame] = item
            continue
        if not exits:
            continue
        for node in item.inputs:
            exit = exits.get(node.frame) if node.op is None else None
            if exit is not None and node.seq >= exit.seq and not node.is_resource and node.dtype.is_floating:
                found.append((node, exit))
    return found


def path_back(reached, node) -> list:
    """[(node, Reach)] from the source's first step to `node`."""
    steps = []
    while node is not None and reached[node].parent is not None:
        steps.append((node, reached[node]))
        node = reached[node].parent
    steps.reverse()
    return steps


def ancestors(nodes, floor_seq: int) -> set:
    """Every node the given ones were computed from (not before `floor_seq`)."""
    seen = set()
    stack = [n for n in nodes if n is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.op is not None and node.seq >= floor_seq:
            stack.extend(node.op.inputs)
    return seen


def _value_sized(op, reached) -> bool:
    """Does this shape reader read a reached tensor whose size its values decided (opfacts.VALUE_SIZED)?"""
    return any(node in reached and node.op is not None and node.op.type in opfacts.VALUE_SIZED for node in op.inputs)


def copied_variable(graph, snode, tnodes) -> bool:
    """The source variable was made from another variable's value, and the target reads that other one."""
    read_by_target = {node.op.inputs[0] for node in ancestors(tnodes, 0)
                      if node.op is not None and node.op.type == "ReadVariableOp"}
    for op in graph.log:
        if getattr(op, "type", None) == "AssignVariableOp" and op.inputs and op.inputs[0] is snode:
            made_from = ancestors([op.inputs[1]], 0)
            return any(n.op is not None and n.op.type == "ReadVariableOp" and n.op.inputs[0] in read_by_target
                       for n in made_from)
    return False


def variables_read(target_nodes) -> list:
    """The variables (their handle nodes) the target was computed from, in the order they were made."""
    handles = {node.op.inputs[0] for node in ancestors(target_nodes, 0)
               if node.op is not None and node.op.type == "ReadVariableOp" and node.op.inputs}
    return sorted(handles, key=lambda node: node.seq)


# writes that return a new list or array instead of changing theirs: in a traced function, `ta.write(i, x)` without
# `ta = ` leaves the array that is read later without the value (eagerly a TensorArray is changed in place)
FUNCTIONAL_WRITES = frozenset({"TensorListSetItem", "TensorListPushBack", "TensorListScatterIntoExistingList",
                               "TensorArrayWriteV3", "TensorArrayScatterV3"})


def dropped_write(graph, reached):
    """The first functional write the source's values went into whose result no recorded op read, or None."""
    writes = [reach.op for reach in reached.values() if reach.op is not None and reach.op.type in FUNCTIONAL_WRITES]
    if not writes:
        return None
    read = {node for item in graph.log for node in getattr(item, "inputs", ())}
    return next((op for op in writes if op.frame is not None and not any(out in read for out in op.outputs)), None)


def update_between(graph, source_node, targets):
    """The write that is the only way the source reaches a target: a value computed by a gradient call from the
    source (descendants leaves these out: an optimizer's update is how training goes on, not a path) written into
    a variable the target then read. None when no such write leads there."""
    reached = descendants(graph, source_node, updates=True)
    hits = [node for node in targets if node in reached]
    if not hits:
        return None
    return next((reach.via[1] for _, reach in path_back(reached, hits[0]) if reach.via and reach.via[0] == "state"),
                None)


# ---------------------------------------------------------------- where a source's values stopped


def made_at(graph, op):
    """The line to change for an op of a Keras layer that cut the path, when a Keras model ran that layer (the cast to
    integers inside an Embedding given float predictions, under fit): the user's line that made the layer, not the
    fit or model call that ran it (when what it cut was made in that same run: fed the model's own input, the model's
    call is where the wrong value went in). A layer the user's own code called (`embedding(ids)` in a tf.function, in a
    subclassed model's call) is said at that call, the op's own line; a Lambda's ops run the user's function and carry
    its lines already. A traced op's scope parts may carry a suffix the graph added to keep names apart
    ("embedding_1_1" for the layer "embedding_1"): each is tried as it is first, then without it."""
    parts = (_traced_scope(op) or op.scope or "").rstrip("/").split("/")
    # fed by an op of the same model run (a Dense's output), not by the model's input (ids to an Embedding first)
    inside = any(node.op is not None and node.op.frame == op.frame for node in op.inputs)
    if graph is None or not inside or len(parts) < 2 or not any(_made(graph, part) for part in parts[:-1]):
        return op.frame
    made = _made(graph, parts[-1])
    return made[1] if made and type(made[0]).__name__ != "Lambda" else op.frame


def _made(graph, name: str):
    """(the Keras layer, the user's line that made it) named `name` (or `name` less a graph's "_N" suffix), or None."""
    for wanted in (name, re.sub(r"_\d+$", "", name)):
        found = next(((layer(), at) for layer, at in graph.layers_made if getattr(layer(), "name", None) == wanted),
                     None)
        if found is not None:
            return found
    return None


def _traced_scope(op) -> str | None:
    """A traced op's name scope, from its output's name in the graph ("functional/embedding_1/Cast:0"); None for an
    eager op (an eager tensor has no name)."""
    try:
        tensor = op.outputs[0].ref() if op.outputs else None
        return tensor.name.rpartition("/")[0] if tensor is not None else None
    except (AttributeError, ValueError, TypeError):
        return None


def dead_end(reached, floor: int):
    """The frame of the last op that computed, by data, from the source at or after `floor` (the tape's start): where
    its values stopped when the target does not depend on them; None when no op did."""
    last = None
    for reach in reached.values():
        op = reach.op
        if op is not None and reach.via is None and not reach.through_gradient and op.seq >= floor and \
                op.frame is not None and (last is None or op.seq > last.seq):
            last = op
    return last.frame if last is not None else None


# ops through which a target stays a weighted sum of what it is computed from: it adds, moves, slices, or (SCALING)
# multiplies by a factor not computed from it
LINEAR = frozenset({"AddV2", "Add", "AddN", "Sub", "Neg", "Sum", "Mean", "Transpose", "StridedSlice", "Slice",
                    "GatherV2", "ConcatV2", "Pack", "Tile", "BroadcastTo"}) | opfacts.PASS_THROUGH
SCALING = frozenset({"Mul", "RealDiv"})
MAX_LINEAR = 5000  # a target computed from more nodes than this is not looked into (the time would not be bounded)


def sums_of(target, outputs) -> bool:
    """Is the target a weighted sum of the nodes `outputs` (a softmax's, say) and of values not computed from them,
    so that it sees each only through linear ops (a loop's `loss += -mean(p[:, i])`; not a log of p, a cross-entropy)?
    """
    seen = walk([target], lambda node: node.op.inputs if node.op is not None and node not in outputs else (),
                MAX_LINEAR)
    if seen is None:  # every node the target was computed from, back to `outputs`: too many to look into
        return False
    depends: dict = {}
    for node in sorted(seen, key=lambda node: node.seq):  # each op's inputs before its outputs
        fed = [i for i in node.op.inputs if depends.get(i)] if node.op is not None and node not in outputs else []
        depends[node] = node in outputs or bool(fed)
        if fed and not (node.op.type in LINEAR or node.op.type in SCALING and len(fed) == 1):
            return False
    return depends[target]


def traced_by(info, node) -> bool:
    """Did the tape trace this tensor? TensorFlow records an op only when an input is one it watches or traced already:
    a tensor computed under the tape from constants alone is not traced, and its gradient is None however the target
    used it (`y1 = x * w1` of constants, then `tape.gradient(y2, y1)`)."""
    tape = info.tape()
    handles = {id(v.handle) for v in tape.watched_variables()} if tape is not None else set()
    seen, todo = set(), [node]
    while todo:
        one = todo.pop()
        if one in seen:
            continue
        seen.add(one)
        if one in info.watched or one.is_resource and id(one.ref()) in handles:
            return True
        if one.op is None or info not in one.op.tapes:
            continue
        if one.op.type in ("gradient", "custom_gradient"):  # gradtutor's links (checks.py): not judged here
            return True
        todo.extend(one.op.inputs)
    return False
