"""Gradients that came back and look fine (not None, zero or NaN) but are not what the code meant.

A term whose value left TensorFlow and came back as a constant (`np.sin(x.numpy()) * x`: only
sin(x) survives), a variable made again each step from its first value (the updates are lost),
and entries exactly zero because a sigmoid of the source itself sat at its float32 limit. Each is
looked at only when a cheap sign says it may apply (an exit while the tape recorded, a new variable
at a call site, a saturating op of the source's own shape), so a training loop pays nothing for them
otherwise. Each returns (cause id, the frame to quote, facts) or None, as analysis.diagnose does.
"""
from __future__ import annotations

import linecache
import weakref

from gradtutor.evidence.reading import paths
from gradtutor.evidence.recording.tapes import tf_object
from gradtutor.evidence.symptoms import SATURATING, data_facts, saturated_elements
from gradtutor.evidence.reading.unexplained import finding_at, said_values
from gradtutor.evidence.reading.values import kept_value
from gradtutor.messages import say
from gradtutor.protocol import Cause, Symptom


def partly_outside(record, info, targets, source):
    """A gradient that came back and looks fine, but is short of the terms whose values left TensorFlow and came back
    as constants into the target (`y = tf.reduce_sum(np.sin(x.numpy()) * x)`: only sin(x) survives): (cause id,
    the exit's frame, facts), or None. Looked for only when a value left TensorFlow while this tape recorded."""
    import tensorflow as tf

    graph = record.graph
    source = tf_object(source)
    if graph.last_exit <= info.pushed or not (isinstance(source, tf.Variable) or tf.is_tensor(source)):
        return None
    snode = graph.known(source.handle if isinstance(source, tf.Variable) else source)
    tnodes = [node for node in (graph.known(t) for t in targets if tf.is_tensor(t)) if node is not None]
    if snode is None or not tnodes:
        return None
    came_back = paths.reentries(graph, paths.descendants(graph, snode), info.pushed)
    if not came_back:
        return None
    history = paths.ancestors(tnodes, info.pushed)
    for node, exit in came_back:
        if node in history:
            return Cause.LEAVES_TENSORFLOW, exit.frame, {"left": exit.kind}
    return None


def zero_where_saturated(record, info, targets, source, gradient):
    """A gradient exactly zero at some entries (not all), each of them an entry where a sigmoid, tanh or softmax of
    the source itself sat at its float32 limit (`p = tf.sigmoid(z)`, then a clip or log of p): the slope there is 0
    and the tape returns 0 where the loss still has one. (cause id, the activation's frame, facts) or None. Only for
    an activation of the source's own shape (its entries are the source's), so a ReLU's zeros in a weight's
    gradient or a saturated gate of a layer are never read as this."""
    import tensorflow as tf

    value = kept_value(getattr(gradient, "values", gradient))
    if value is None or value.dtype.kind != "f" or not value.size:
        return None
    zeros = value == 0
    if not zeros.any() or zeros.all():
        return None
    suspects = [op for op in record.graph.kept if op.type in SATURATING and info in op.tapes and op.values is not None
                and op.outputs and _units_of(op.outputs[0].shape, value.shape)]
    if not suspects:
        return None
    graph = record.graph
    source = tf_object(source)
    snode = graph.known(source.handle if isinstance(source, tf.Variable) else source)
    tnodes = [node for node in (graph.known(t) for t in targets if tf.is_tensor(t)) if node is not None]
    if snode is None or not tnodes:
        return None
    on_path = paths.ancestors(tnodes, snode.seq) & set(paths.descendants(graph, snode))
    for op in suspects:
        mask = saturated_elements(op.type, kept_value(op.values[1][0]))
        if op.outputs[0] not in on_path or mask is None:
            continue
        layer = graph.layer_of(op)  # run by a Keras layer: the line that made it chose the activation
        at, facts = (layer[1] if layer else op.frame), {"op": op.type, "zero_entries": f"{int(zeros.sum())}/{zeros.size}",
                                                        **({"layer": layer[0]} if layer else {}), **data_facts(op)}
        if mask.shape == zeros.shape and mask[zeros].all():
            return Cause.SATURATION, at, facts
        # a layer's weights (in, units) or bias (units,) under its activation (batch, units): a unit saturated for
        # every example passes no gradient to its column, and those columns are the zeros
        units = mask.reshape(-1, mask.shape[-1]).all(axis=0) if mask.ndim >= 2 else None
        columns = zeros.reshape(-1, zeros.shape[-1]).all(axis=0)
        if units is not None and units.shape == columns.shape and columns.any() and units[columns].all() \
                and zeros[..., ~columns].sum() == 0:
            return Cause.SATURATION, at, facts
    return None


def _units_of(activation_shape, gradient_shape) -> bool:
    """Is the activation the source's own shape, or a layer's output (batch, …, units) whose last axis is the
    gradient's (a kernel's columns, a bias)?"""
    if getattr(activation_shape, "rank", 0) is None:
        return False
    dims = tuple(activation_shape.as_list() if hasattr(activation_shape, "as_list") else activation_shape)
    return dims == tuple(gradient_shape) or len(dims) >= 2 and len(gradient_shape) >= 1 and \
        dims[-1] is not None and dims[-1] == gradient_shape[-1]


def restarted(record, key, source):
    """The variable asked for at this call is a new one, made at the same line as the one asked for last time, from
    the same starting value, after that one was updated (`for step …: w = tf.Variable(w0); …; w.assign_sub(…)`):
    every step starts again from w0 and the updates are lost. (cause id, the line that made it, facts) or None. A
    new variable made from another value (a new batch, a new random draw) is a new problem, not a restart."""
    import tensorflow as tf

    source = tf_object(source)
    if not isinstance(source, tf.Variable):
        return None
    graph = record.graph
    node = graph.known(source.handle)
    previous = record.previous_sources.get(key)
    record.previous_sources[key] = weakref.ref(node) if node is not None else None
    previous = previous() if previous is not None else None
    if node is None or previous is None or previous is node or node.frame is None or node.frame != previous.frame:
        return None
    first = graph.first_value.get(node)
    if first is None or graph.first_value.get(previous) != first or not graph.updates.get(previous):
        return None
    return Cause.VARIABLE_REPLACED, node.frame, {"restarted": "from the same value"}


def swapped_variables(record) -> list[dict]:
    """A compiled function traced with a tf.Variable argument that its code also reads by name, then called with
    another variable without tracing again (recording.compiled.python_state): TensorFlow fed the new variable to the
    one input both stood for, so the graph computed with it wherever the code read the old one, and what it returned
    (its gradients too) is finite and not what the code says. A finding of its own: no gradient looked wrong."""
    out = []
    for noted in record.python_state.values():
        for read, given, call in noted.swapped.values():
            other = _name_of(read, given)
            file, line = call or (noted.file, noted.first)
            message = say("finding.unexplained.swapped", name=read.name, other=other, read_line=read.line)
            out.append(finding_at((file, line, "compiled"), Cause.FROZEN_PYTHON_STATE, Symptom.VALUES,
                                  (noted.file, read.line), message,
                                  say("finding.unexplained.fix_swapped", name=read.name, other=other), 1,
                                  {"how": "alias", "name": read.name, "given": other}))
    return out


def _name_of(read, variable) -> str:
    """How the program names the variable given instead: a name beside the one read (a global, an attribute of the
    same object) bound to it, else the variable's own name."""
    names = read.holder if read.kind == "global" else getattr(read.holder, "__dict__", {})
    found = next((name for name, value in list(names.items()) if value is variable and not name.startswith("_")), None)
    return found or str(getattr(variable, "name", "another variable"))


def stale_reads(record, found: list[dict]) -> list[dict]:
    """A Python number or bool a compiled function read when traced and asked gradients after, changed by the program
    since without a new trace (recording.compiled.python_state): the graph still computes with the old value (a loss
    weight annealed from 0.0 to 1.0 after a warm-up), so gradients that look fine are the old formula's. A finding
    at the function's gradient call (for the program's code a Keras step runs, its loss's call: at the fit line),
    unless one already names that read (reading.unexplained, for a None or a zero).
    Likewise a random draw its Python made (np.random.rand for a dropout mask): made once, when traced, it is a
    constant of the graph, and every later call computed with the same values."""
    said = {(f["file"], (f["broke_at"] or {}).get("line")) for f in found if f["cause"] == Cause.FROZEN_PYTHON_STATE}
    sites = [site for site in record.observations.sites.values() if site.kind != "trace" and site.line]
    out = []
    for top, noted in ((top, one) for top in record.python_state.values() for one in (top, *top.inner)):
        asked = sorted([site for site in sites if (site.file, site.line) == noted.at] if noted.at else
                       [site for site in sites if site.file == noted.file and noted.first <= site.line <= noted.last],
                       key=lambda site: site.line)
        for read, now in noted.changed.values():
            if read.name in noted.written:  # changed by the function's own Python, as it was traced: not the program
                continue
            # read on the way to a gradient it asks for; an optimizer's learning-rate function, on the way to its update
            # (code a Keras step runs, its loss's call: at the fit line that runs it)
            site = asked[0] if (read.name in noted.indirect or noted.at) and asked else _first_asked(asked, read.line)
            update = site is None and asked and _updates(noted.file, read.line)  # read in the update after the gradient
            site = max(asked, key=lambda one: one.line) if update else site
            if site is None or (noted.file, read.line) in said:
                continue
            traced, shown = (_object(read.value), _object(now)) if read.held else (repr(read.value), repr(now))
            # a model built anew under the name: the old one is still trained; a learning rate the optimizer's function read
            held = "_object" if read.held else "_rate" if read.name in noted.indirect else "_update" if update else ""
            message = say(f"finding.unexplained.frozen{held}_fine", name=read.name, traced=traced, now=shown,
                          read_line=read.line)
            out.append(finding_at((site.file, site.line, site.kind), Cause.FROZEN_PYTHON_STATE, Symptom.VALUES,
                                  (noted.file, read.line), message,
                                  say({"_object": "finding.unexplained.fix_frozen_object", "_rate":
                                       "finding.unexplained.fix_frozen_rate"}.get(held, "cause.frozen-python-state.fix"),
                                      name=read.name), 1,
                                  {"how": "object" if read.held else "stale", "name": read.name, "traced": traced,
                                   "now": shown}))
            said.add((noted.file, read.line))
        inside = asked or [site for site in sites if site.file == noted.file and noted.first <= site.line <= noted.last]
        for read in (one for one in noted.reads if one.name in noted.written and top.calls and inside):
            # the function's own Python changes it (`self.step_count += 1`), which runs only when traced: where it
            # decides an update (`if self.step_count % n == 0:` over apply), every call since took the traced branch
            if (noted.file, read.line) in said or not (_updates(noted.file, read.line) or
                                                       _rebinds_itself(noted.file, noted.written[read.name], read.name)):
                continue
            out.append(finding_at((inside[-1].file, inside[-1].line, inside[-1].kind), Cause.FROZEN_PYTHON_STATE,
                                  Symptom.VALUES, (noted.file, noted.written[read.name]),
                                  say("finding.unexplained.frozen_written_fine", name=read.name,
                                      line=noted.written[read.name], read_line=read.line),
                                  say("finding.unexplained.fix_frozen_written_fine", name=read.name), 1,
                                  {"how": "written", "name": read.name}))
            said.add((noted.file, read.line))
        for draw, line in noted.draws if noted.calls else ():  # run again with the draw its trace made
            site = _first_asked(asked, line)
            if site is None or (noted.file, line) in said:
                continue
            out.append(finding_at((site.file, site.line, site.kind), Cause.FROZEN_PYTHON_STATE, Symptom.VALUES,
                                  (noted.file, line),
                                  say("finding.unexplained.frozen_draw", draw=draw, line=line, calls=noted.calls),
                                  say("finding.unexplained.fix_frozen_draw"), 1,
                                  {"how": "draw", "name": draw, "calls": str(noted.calls)}))
            said.add((noted.file, line))
    return out


def _object(value) -> str:
    """A model (a layer, a variable) as the program would recognise it: its class and its name."""
    return f"{type(value).__name__} {getattr(value, 'name', '')!r}".strip()


def _rebinds_itself(file: str, line: int, name: str) -> bool:
    """Does the line rebind the name from itself (`self.x = self.x - lr * g`, `x = x - lr * g`): an update by hand?"""
    target, _, value = linecache.getline(file, line).partition("=")
    return f".{name}" in target and f".{name}" in value or target.strip() == name and name in value.split()


def _updates(file: str, line: int) -> bool:
    """Does the line change the weights (`w.assign_sub(lr * dw)`, an optimizer's apply_gradients), or is it an `if`
    (`while`) whose block does (`if self.learning_started:` over apply_gradients, traced False: no update at all)?
    A value frozen there is the update's, as a learning rate an optimizer's function read is."""
    header = linecache.getline(file, line)
    lines, indent = [header], len(header) - len(header.lstrip())
    if header.lstrip().startswith(("if ", "elif ", "while ")) and header.split("#")[0].rstrip().endswith(":"):
        below = line + 1
        while (text := linecache.getline(file, below)) and (not text.strip() or len(text) - len(text.lstrip()) > indent):
            lines.append(text)
            below += 1
    return any(word in text for text in lines for word in ("assign", "apply_gradients", "minimize", "optimizer.apply("))


def _first_asked(sites, line: int):
    """The first gradient call at or after `line` of the function (a value read there reaches what it asks), or None."""
    return min((site for site in sites if site.line >= line), key=lambda site: site.line, default=None)


def unfrozen_untrained(record) -> list[dict]:
    """Weights a layer's `trainable = True` unfroze after a compiled step that asks for gradients had been traced,
    which that step ran on without a new trace and left unchanged (recording.compiled.unfrozen): the traced step keeps
    the weight list of its trace, so they never train, and every gradient it asks for looks fine. One finding per
    line that unfroze them, at that line."""
    by_line: dict = {}
    for event in record.unfrozen:
        found = event.untrained_by()
        if found is not None:
            by_line.setdefault(event.frame, []).append((event, found[1]))
    out = []
    for (file, line), untrained in by_line.items():
        names = [str(getattr(event.weight(), "path", None) or getattr(event.weight(), "name", "?"))
                 for event, _ in untrained]
        calls = min(calls for _, calls in untrained)
        shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
        message = say("finding.unexplained.unfrozen", names=shown, count=len(names), line=line, calls=calls)
        out.append(finding_at((file, line, "compiled"), Cause.FROZEN_PYTHON_STATE, Symptom.VALUES, (file, line),
                              message, say("finding.unexplained.fix_unfrozen"), 1,
                              {"how": "trainable", "weights": str(len(names)), "calls": str(calls)}))
    return out


def data_given(record, findings: list[dict]) -> list[dict]:
    """A NaN or inf whose birth no op showed (not known), at the line of a fit or train_on_batch whose arrays held NaN
    or inf when it was called (fit_data.nonfinite_rows): most likely the data carried it in, a non-finite finding
    (how=data) at that line in its place. Which row reached the step, and where the data came from, is not checked:
    the message says which part and rows, and "most likely"."""
    given = {kept.frame: (kept.call, kept.nonfinite) for kept in record.trained.values() if kept.nonfinite}
    out = []
    for found in findings:
        held = given.get((found["file"], found["line"]))
        if held is None or found["cause"] != Cause.NOT_KNOWN or found["symptom"] != Symptom.NONFINITE:
            out.append(found)
            continue
        call, facts = held
        site = record.observations.sites.get((found["call"], found["file"], found["line"]))
        values = said_values(site, site.bad(), "nonfinite") if site is not None else found["message"]
        message = say("finding.unexplained.data_given", values=values, call=call, **facts)
        out.append(finding_at((found["file"], found["line"], found["call"]), Cause.NON_FINITE, Symptom.NONFINITE,
                              (found["file"], found["line"]), message, say("cause.non-finite.data_fix"),
                              found["count"], dict(found["facts"], how="data", **facts)))
    return out
