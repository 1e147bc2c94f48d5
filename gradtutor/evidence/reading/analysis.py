"""From what ran to a cause: why one gradient came back None, zero or non-finite, and the line where the path broke.
`diagnose`, called right after a bad gradient (its tensors alive), returns (cause id, broke_at frame, facts) or None."""
from __future__ import annotations

import numpy as np

from gradtutor.evidence.recording import opfacts
from gradtutor.evidence.recording.graph import WRITES
from gradtutor.evidence.recording.compiled import evaluate, graph_replay
from gradtutor.evidence import cuts, source_lines, symptoms
from gradtutor.evidence.reading import paths, probe
from gradtutor.evidence.reading.values import birth, dropped_by_where, evidence_at, how_made, kept_value
from gradtutor.evidence.recording.tapes import tf_object
from gradtutor.protocol import Cause, Symptom

FLOWING_STEPS = frozenset({"gradient", "custom_gradient"})  # steps gradtutor adds (checks.py, custom_gradients.link)
SUMMING = frozenset({"Sum", "Transpose"})  # a total over every element, or its elements moved (softmax(axis=0))
ROW_SLICES = frozenset({"StridedSlice", "Slice", "GatherV2"})
JOINING = frozenset({"AddV2", "Add", "AddN", "Sub", "Sum"})  # ops that add terms up (or take one from another)


def diagnose(record, info, targets, source, symptom):
    import tensorflow as tf

    graph = record.graph
    source = tf_object(source)
    is_variable = isinstance(source, tf.Variable)
    if not (is_variable or tf.is_tensor(source)):
        return None
    snode = graph.node_of(source.handle if is_variable else source, info.frame)
    tnodes = [graph.node_of(t, info.gradient_frame) for t in targets if tf.is_tensor(t)]
    if source.dtype.is_integer or source.dtype.is_bool:
        return Cause.INTEGER_PATH, snode.frame or info.frame, {}
    found = _unwatched(record, info, source, snode, is_variable)
    reached = paths.descendants(graph, snode)
    hits = [n for n in tnodes if n in reached]
    # an unwatched tensor or frozen variable: "watch it" ("make it trainable") is the fix only if the target was computed
    # from it by TensorFlow ops, not through a copy into a variable or a value that left TensorFlow (a tape watching
    # nothing, or a frozen variable the target does not read at all, a BatchNormalization's moving mean, is the story)
    why = found[2].get("why") if found is not None else None
    if found is not None and (why not in ("tensor", "not trainable") or _by_data(reached, hits)
                              or why == "not trainable" and not hits):
        return found
    if not hits and is_variable and id(source.handle) in record.rebound:  # its attribute set to a plain value
        return Cause.VARIABLE_REPLACED, record.rebound[id(source.handle)], {"how": "rebound"}
    if not hits:  # watching the source would not help: the target was not computed from it at all
        # a source nothing read but this gradient call, and never watched: an object made for the call (a second
        # tf.convert_to_tensor(x), x[0] sliced after the target); the call is where the wrong object was passed
        fresh = not is_variable and snode not in info.watched and (snode.op is None or tnodes and snode.seq > max(
            n.seq for n in tnodes)) and all(reach.op is None or reach.op.type == "gradient" for reach in reached.values())
        return _not_connected(graph, info, snode, tnodes, reached, is_variable, fresh, symptom == Symptom.NONE)
    steps = paths.path_back(reached, hits[0])
    late = _watched_late(info, snode, steps)
    if late is not None and symptom == Symptom.NONE:
        return Cause.UNWATCHED, late, {"why": "watched after use"}
    # zeros from a cut only when every path is cut (tf.nn.moments' stop_gradient in a BatchNormalization is on one)
    cut = symptom == Symptom.ZEROS and _breaks(steps, info) is not None and not cuts.cuts_back(tnodes, {snode})[0]
    if symptom == Symptom.NONE or cut:
        return _broken(graph, steps, info, hits[0], cuts.bypassed(tnodes, {snode}), snode)
    return _flat(graph, reached, snode, tnodes, symptom, info.tape(), source)


def _unwatched(record, info, source, snode, is_variable):
    tape = info.tape()
    if is_variable and info.forward:  # an accumulator's primals are what it follows (forward.py)
        return None if snode in info.watched else (Cause.NOT_USED, info.frame, {"why": "not a primal"})
    if is_variable:
        handles = {id(v.handle) for v in (tape.watched_variables() if tape is not None else ())}
        if id(source.handle) in handles:
            return None
        if not source.trainable:  # the line that made it, else the first that read it (not the tape's `with`)
            made = snode.frame if _made_by_user(record.graph, snode) else _first_read(record.graph, snode, info)
            return Cause.UNWATCHED, made or info.frame, {"why": "not trainable"}
        if not info.watch_accessed:  # the tape's `with` line turned watching off
            return Cause.UNWATCHED, info.frame or snode.frame, {"why": "watch_accessed_variables=False"}
        return None
    if snode in info.watched or (snode.op is not None and info in snode.op.tapes and paths.traced_by(info, snode)):
        return None
    for other in record.tapes:
        if other is not info and snode in other.watched:
            # recording when the source was used (an outer tape around the one that watched it), it missed the watch
            if _first_read(record.graph, snode, info) is not None:
                return Cause.UNWATCHED, info.frame or info.gradient_frame, {"why": "outer", "how": "outer"}
            return Cause.WRONG_TAPE, info.gradient_frame, {}
    if snode.op is not None and _made_from_variable(snode):
        return Cause.VARIABLE_REPLACED, snode.frame, {}
    # the line that made the unwatched tensor (an op or a conversion of the user's: graph.patch_conversions), else (an
    # input) the first line that read it under this tape; the tape's `with` line only when neither is known
    if _made_by_user(record.graph, snode):
        return Cause.UNWATCHED, snode.frame or info.frame, {"why": "tensor"}
    read = _first_read(record.graph, snode, info)  # an input (a function's argument): where the tape first used it
    return Cause.UNWATCHED, read or info.frame, {"why": "tensor", **({"how": "read"} if read else {})}


def _made_by_user(graph, node) -> bool:
    """Made by an op or a conversion of the user's code (not a traced function's argument, a Placeholder)."""
    return node in graph.converted or node.op is not None and node.op.type != "Placeholder"


def _first_read(graph, snode, info):
    """The frame of the first op recorded under the tape `info` that read the node (None: no such op was recorded)."""
    return next((op.frame for op in graph.log if info in getattr(op, "tapes", ()) and snode in getattr(op, "inputs", ())), None)


def _by_data(reached, hits) -> bool:
    """Computed from the source by TensorFlow ops alone (through state or a value that left, watching would not help)."""
    return bool(hits) and not any(reach.via is not None for _, reach in paths.path_back(reached, hits[0]))


def _watched_late(info, snode, steps):
    """The watch() frame, when the op that first used the source on the path ran under this tape, but before
    the source was watched (an op before the `with` block is outside-tape, not a late watch)."""
    watched = info.watched_at.get(snode)
    first = steps[0][1].op if steps else None
    if watched is None or first is None or info not in first.tapes:
        return None
    return watched[1] if first.seq <= watched[0] else None


def _made_from_variable(node, depth=2) -> bool:
    """Computed from a variable of the same shape: the name of a variable now points at a tensor."""
    frontier = [node]
    for _ in range(depth):
        frontier = [i for n in frontier if n.op is not None for i in n.op.inputs]
        if any(n.op is not None and n.op.type == "ReadVariableOp" and n.shape == node.shape for n in frontier):
            return True
    return False


def _not_connected(graph, info, snode, tnodes, reached, is_variable, fresh=False, none=False):
    for node in tnodes:  # a target made from values that left TensorFlow (a constant from numpy or Python)
        exit = paths.exits_before(graph, reached, node) if node.op is None else None
        if exit is not None:
            return (*_left(exit), {"op": exit.into} if exit.into else {})
    left = cuts.integers_left(graph, reached, lambda seq: paths.ancestors(tnodes, seq)) if none else None  # tokens
    if left is not None and (found := _breaks(paths.path_back(reached, left.node), info, graph)) is not None:
        return (*found, {})
    update = paths.update_between(graph, snode, tnodes) if none else None  # zeros asked for stay not-used
    if update is not None:  # only through an optimizer's update inside the tape (learning to reweight, MAML)
        return Cause.STATE_BREAKS_PATH, update.frame, {"how": "update"}
    if is_variable and tnodes and paths.copied_variable(graph, snode, tnodes):
        return Cause.VARIABLE_REPLACED, snode.frame, {}
    if fresh and info.gradient_frame is not None:  # a new object made for the call (tf.convert_to_tensor(x) again)
        return Cause.NOT_USED, info.gradient_frame, {"why": "a new object", "how": "new"}
    dropped = paths.dropped_write(graph, reached)
    if dropped is not None:  # the source went into a TensorArray write whose new array nothing read
        return Cause.NOT_USED, dropped.frame, {"dropped": dropped.type}
    over = source_lines.overwritten_after(paths.dead_end(reached, info.pushed))  # `out = layer4(x)` after `out = …`
    if over:
        return Cause.NOT_USED, over, {"how": "overwritten"}
    at = tnodes[0].frame if tnodes else info.gradient_frame
    if is_variable and snode.op is not None and (snode.frame != at == info.gradient_frame == info.frame  # fit's
                                                  or source_lines.made_in_setup(snode.frame)):  # a layer's weight
        return Cause.NOT_USED, snode.frame, {"how": "made"}  # where it was made says more than the tape's one line
    return Cause.NOT_USED, at, {}


def _programs(tapes) -> list:
    """The program's own tapes: not one a compiled step's replay opens to answer tf.gradients (graph_replay)."""
    return [one for one in tapes if one.tape() not in graph_replay.ANSWERING]


def _breaks(steps, info, graph=None, around=None):
    """The step on which the path from the source breaks, as (cause, frame), or None. First a value that left
    TensorFlow (the target's own history says so), then state (an assign, an iterator, a tf.data dataset), then the
    first step from the source that the tape did not record or cannot differentiate (and no other path goes
    `around`)."""
    if steps and steps[-1][1].via is not None and steps[-1][1].via[0] == "exit":
        copied = _copied_into_variable(steps, steps[-1][1].via[1])
        return copied or _left(steps[-1][1].via[1])
    for node, reach in steps:
        if reach.via is not None:
            return (Cause.STATE_BREAKS_PATH, reach.via[1].frame) if reach.via[0] == "state" else _left(reach.via[1])
        if reach.op is not None and opfacts.holds_state(reach.op.type, reach.op.outputs):
            return Cause.STATE_BREAKS_PATH, reach.op.frame  # into a tf.data dataset, or through one (Dataset.reduce)
    # a step no tape recorded cuts every tape's path (a sum built after each `with`, a replica's step): the tape
    # asked is the wrong one only when every step was recorded, some by another tape
    loose = next((reach.op for _, reach in steps if reach.op is not None and not _programs(reach.op.tapes)
                  and reach.op.type not in FLOWING_STEPS), None)
    for node, reach in steps:
        op = reach.op
        if op is None:
            continue
        if info not in op.tapes:
            return (Cause.OUTSIDE_TAPE, loose.frame) if loose is not None else \
                ((Cause.WRONG_TAPE if _programs(op.tapes) else Cause.OUTSIDE_TAPE), op.frame)
        if op.type in FLOWING_STEPS or around is not None and around(op):
            continue
        kind = opfacts.gradient_kind(op.type)
        if kind == "python":
            return Cause.LEAVES_TENSORFLOW, op.frame
        if kind == "stop":
            return Cause.STOP_GRADIENT, op.frame
        if kind in ("none", "missing", "zero"):
            return Cause.NO_GRADIENT_OP, paths.made_at(graph, op)
        if node.is_integer and not node.is_resource:
            # positions computed from float values (argsort's and top_k's indices) have no gradient: the op that
            # returned them is where the path ends; a float cast to integers is the path itself turned integer
            indices = op.type != "Cast" and reach.parent is not None and not reach.parent.is_integer
            return (Cause.NO_GRADIENT_OP if indices else Cause.INTEGER_PATH), paths.made_at(graph, op)
    return None


def _copied_into_variable(steps, exit):
    """(state-breaks-path, line) when the value that left TensorFlow was written into a variable at the same line
    (`copy.set_weights(model.get_weights())`): the write is the cut to remove (a tensor would not carry it either)."""
    write = next((reach.op for _, reach in steps if reach.op is not None and reach.op.type in WRITES), None)
    return (Cause.STATE_BREAKS_PATH, write.frame) if write is not None and write.frame == exit.frame else None


def _left(exit):
    """(cause, frame) of a value that left TensorFlow: into np.argmax and its kin, the indices are the cut (they have
    no slope in TensorFlow either: staying in tf ops would not help); else the exit itself."""
    return (Cause.NO_GRADIENT_OP if exit.into else Cause.LEAVES_TENSORFLOW), exit.frame


def _broken(graph, steps, info, target, around=None, snode=None):
    found = _breaks(steps, info, graph, around) or (_breaks(steps, info, graph) if around is not None else None)
    if found is None and any(reach.through_gradient for _, reach in steps):  # reached through a derivative alone,
        alone = paths.descendants(graph, snode, gradients=False)  # which need not read it: a cut on another path
        found = _breaks(paths.path_back(alone, target), info, graph) if target in alone else None
    if found is None:
        return Cause.NOT_USED, target.frame, {}
    into = next((reach.via[1].into for _, reach in steps if reach.via and reach.via[0] == "exit"), None)
    if found[0] == Cause.OUTSIDE_TAPE and any(reach.op in graph.elsewhere for _, reach in steps if reach.op):
        return found[0], found[1], {"how": "thread"}  # run by another thread while the tape recorded this one
    if found[0] == Cause.OUTSIDE_TAPE:  # in a function called after the block: that call is the line to move
        return found[0], source_lines.call_after_block(found[1], info.frame, info.gradient_frame), {}
    return found[0], found[1], {"op": into} if into and found[0] == Cause.NO_GRADIENT_OP else {}


def _flat(graph, reached, snode, tnodes, symptom, tape=None, source=None):
    """A recorded path whose gradient is zero, tiny or not finite: read the values the path's ops kept."""
    on_path = paths.ancestors(tnodes, snode.seq)
    ops = sorted({n.op for n in on_path if n in reached and n.op is not None}, key=lambda op: op.seq)
    ops_cut = [op for op in ops if op.type in opfacts.STOP]
    if symptom == Symptom.NONFINITE:  # None: every forward value was finite (a backward overflow), or it grew
        made = birth(graph, ops, tape, source)
        if made is None and evaluate.fill(graph, ops):  # a tf.function called under the tape: its ops' values
            made = birth(graph, ops, tape, source)
        if made is None:  # none made it: a tensor source that holds one itself is where it came from (data with NaN)
            value = kept_value(source) if source is not None and not hasattr(source, "assign") else None
            held = value is not None and value.dtype.kind in "fc" and value.size and not np.isfinite(value).all()
            return (Cause.NON_FINITE, snode.frame or tnodes[0].frame, {"how": "source"}) if held else None
        how = how_made(made)  # each way of making a NaN or inf has its own fix
        if how in ("overflow", "domain") and dropped_by_where(op for op in ops if op.seq > made.seq):
            how = "where"  # made in a branch a tf.where drops: that branch needs a safe input, whatever made it
        swapped = source_lines.swapped_loss_parameters(made.frame) if how in ("zero", None) else None  # a label's 0
        how = "swapped" if swapped else how or "given"  # given: handed a NaN already (weights broken a step before)
        return Cause.NON_FINITE, swapped or made.frame, {"op": made.type, "how": how}
    target = tnodes[0] if tnodes else None
    softmax, summed = _softmax_output(target)
    if softmax is not None and (summed or target.shape and int(np.prod(target.shape)) > 1):
        # summed or sliced after it (loss = tf.reduce_sum(probs)): that line made the target, and is the one to change
        return Cause.SOFTMAX_SUM, target.frame if summed and target.frame else softmax.frame, {}
    for op in ops:
        found = evidence_at(op) or probe.partly_clipped(graph, op, target)
        if found == Cause.NO_GRADIENT_OP:
            return found, op.frame, {"op": op.type}
        if found in (Cause.DEAD_RELU, Cause.SATURATION, Cause.SOFTMAX_SUM):  # (a softmax of one unit: always 1)
            moved = probe.depends(graph, op, target)  # the target still moved by it? If not, its 0 slope hides nothing
            if moved is False:
                continue
            layer = graph.layer_of(op)  # run by a Keras layer: the line that made it chose the activation
            unit = {"how": "one_unit", "rank": len(op.outputs[0].shape or ())} if found == Cause.SOFTMAX_SUM else \
                symptoms.data_facts(op)  # and data too large for the layer that reads it
            return found, layer[1] if layer else op.frame, {"op": op.type, "probe": "depends" if moved else "not run",
                                                            **({"layer": layer[0]} if layer else {}), **unit}
    softmaxes = [op for op in ops if op.type == "Softmax"]  # and a target made of their outputs by sums alone
    if softmaxes and target is not None and paths.sums_of(target, {out for op in softmaxes for out in op.outputs}):
        # a softmax that is not saturated (checked above) passes back p * (g - <g, p>): zero only when the gradient
        # reaching it is the same along its axis, i.e. the target sees each softmax row only through its sum (1):
        # a target that adds terms up (a loop's `loss += -mean(p[:, i])` over every class) is where they were summed
        joined = target is not None and target.op is not None and target.op.type in JOINING and target.frame
        return Cause.SOFTMAX_SUM, target.frame if joined else softmaxes[0].frame, {"op": "Softmax"}
    if symptom == Symptom.ZEROS and ops_cut:  # cut on one path, nothing else seen, the rest adding up to 0 (w + sg - w)
        return Cause.STOP_GRADIENT, ops_cut[0].frame, {"op": ops_cut[0].type}
    return None


def _softmax_output(node):
    """(the softmax the target is made of, whether the way there summed or sliced it), through ops that move,
    add up or slice whole rows of it: the tape sums the target, and a sum of whole softmax rows is a constant."""
    lasts, summed = [], False
    while node is not None and node.op is not None:
        kind = node.op.type
        if kind == "Softmax":
            row = node.shape[-1] if node.shape else None
            whole = row and all(last == row for last in lasts)  # each slice kept the class axis whole: whole rows
            return (node.op, summed) if whole or not lasts else (None, False)
        if kind in ROW_SLICES:
            lasts.append(node.shape[-1] if node.shape else 0)  # not one class of each row (p[..., c]), however many
        elif kind not in opfacts.PASS_THROUGH and kind not in SUMMING:
            return None, False
        summed = summed or kind in SUMMING or kind in ROW_SLICES
        node = node.op.inputs[0]
    return None, False


__all__ = ["diagnose", "kept_value", "tf_object"]
