"""A TF1 graph's gradients have values only when a `Session` runs them: what each run gave them, and which op on
their path made a NaN or inf.

When gradients are asked for in a `tf.Graph` (not a `tf.function`): `tf.gradients`, or an optimizer's
`compute_gradients` (`minimize` calls it), `watch` notes their tensors, the NaN-prone ops on their paths from the
sources to the target (with those ops' inputs and output) and the placeholders they need. The recording's
`Session.run` seam (recording/compiled/graph_functions.py) fetches them with the program's own fetches, in that one
run (the same batch, the same variable values, nothing run twice), on the runs that feed every placeholder they
need: every run at first, then every EVERY-th. `read` takes what came back: the gradients go into their call
site's observations, so a report says "fine" of them only when they were seen fine, and on the first run whose
gradient is NaN or inf, the first op on the path that made a NaN or inf out of finite values is the finding's line
(as a tape's recorded ops are read: reading/values.py). A gradient that depends on an op that draws from a stream
(an iterator, a queue) is left unobserved: fetched in a run of the program's that did not draw, it would draw one
batch more.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from gradtutor.evidence import symbolic
from gradtutor.evidence.reading import values
from gradtutor.evidence.recording import instrument, opfacts
from gradtutor.protocol import Cause, Symptom

FIRST, EVERY = 200, 16  # runs whose gradients are fetched: each of the first FIRST, then one in EVERY
MAX_NAN_PRONE = 64  # NaN-prone ops on a path whose values are fetched with the gradients (the first, in build order)
DRAWS = ("Iterator", "Dequeue", "ReaderRead")  # op types (by part of the name) that draw from a stream when run


class Kept:
    """A value a run returned, as values.py reads a kept tensor (`_numpy()`, `dtype`)."""

    __slots__ = ("dtype", "value")

    def __init__(self, value):
        self.value = np.asarray(value)
        self.dtype = self.value.dtype

    def _numpy(self):
        return self.value


class RunOp:
    """A graph op with the values one run gave its inputs and output, as values.py reads an op."""

    inputs = ()  # no op behind it is looked at (values._half_constant, values._fed_in)

    def __init__(self, op, inputs, output):
        self.op, self.type = op, op.type
        self.values = ([Kept(v) for v in inputs], [Kept(output)])


@dataclasses.dataclass
class Watch:
    """One gradient call in a tf.Graph: its site, the gradients to fetch (index in the call, tensor), the NaN-prone
    ops on their paths, and the names of the placeholders a run must feed to compute them."""

    call: str
    frame: tuple
    names: list
    gradients: list
    nan_prone: list
    feeds: frozenset
    size: int  # the gradients the call returned, None ones included
    runs: int = 0
    said: bool = False

    def due(self, fed: set) -> bool:
        """Is this run one whose values are fetched? It must feed what they need; then the first FIRST, then every
        EVERY-th."""
        if not self.feeds <= fed:
            return False
        self.runs += 1
        return self.runs <= FIRST or self.runs % EVERY == 0

    def fetches(self) -> list:
        return [[tensor for _, tensor in self.gradients],
                [[list(op.inputs), op.outputs[0]] for op in self.nan_prone]]


def watch(record, call: str, frame, targets: list, sources: list, gradients: list) -> None:
    """A gradient call returned `gradients` for `sources` in a tf.Graph: note what a Session run must fetch to see
    them (record.sessions, by graph), or say why they will not be seen; a None the graph names a cause for is a
    finding now (tf.gradients' own are: reading/checks.tf_gradients_wrapper)."""
    import tensorflow as tf

    record.gradient_calls += 1  # asked for: the report's "asked TensorFlow for no gradient" is not said
    if call == "tf.gradients":  # observed already (recording/instrument.observed)
        site = record.observations.site("compiled", frame)
    else:
        site = record.observations.called("compiled", frame)
        record.observations.gradients(site, list(gradients), False)
    record.observations.unread(site, "graph")
    names = [symbolic._name(s) if tf.is_tensor(s) or hasattr(s, "handle") else str(s) for s in sources]
    if call != "tf.gradients":
        for source, name, gradient in zip(sources, names, gradients):
            found = symbolic.why_none(targets, source) if gradient is None else None
            if found is not None:
                record.add(call, frame, [name], found[0], symbolic.built_at(found[1]) or frame, Symptom.NONE, {})
    fetched = [(index, getattr(g, "values", g)) for index, g in enumerate(gradients)
               if g is not None and (tf.as_dtype(g.dtype).is_floating or tf.as_dtype(g.dtype).is_complex)]
    if not fetched:
        return
    graph = fetched[0][1].graph
    behind = symbolic._ancestors({tensor.op for _, tensor in fetched})
    if behind is None or any(part in op.type for op in behind for part in DRAWS):
        return  # never fetched: the site stays unobserved, as it was said to be
    targets_behind = symbolic._ancestors({t.op for t in targets if tf.is_tensor(t)}) or set()
    reached = set()
    for source in sources:
        start = getattr(source, "handle", source)
        if tf.is_tensor(start) and getattr(start, "graph", None) is graph:
            reached |= symbolic._consumers(start) or set()
    on_path = sorted((op for op in reached & targets_behind
                      if op.type in opfacts.RISKY and op.outputs and op.outputs[0].dtype.is_floating),
                     key=lambda op: op._id)
    feeds = frozenset(op.name for op in behind if op.type == "Placeholder")
    record.sessions.setdefault(id(graph), []).append(
        Watch(call, frame, names, fetched, on_path[:MAX_NAN_PRONE], feeds, len(gradients)))


def read(record, watch: Watch, got) -> None:
    """What one Session run gave a watched call's gradients and its NaN-prone ops (as `Watch.fetches` asked)."""
    gradients, nan_prone = got
    observations = record.observations
    site = observations.site("compiled", watch.frame)
    # a gradient that was None stays None; one not fetched (not floating) is not read again
    results = [None] * watch.size
    for (index, _), value in zip(watch.gradients, gradients):
        results[index] = Kept(value)
    observations.gradients(site, results, True)
    for observer in list(instrument.OBSERVERS):  # explain --fix's re-run: the values, at the line that asked
        observer(record, None, None, results, frame=watch.frame)
    site.calls = max(site.calls, watch.runs)
    bad = [index for index, value in zip((i for i, _ in watch.gradients), gradients)
           if not np.isfinite(np.asarray(value)).all()]
    if not bad or watch.said:
        return
    watch.said = True  # the first run whose gradients are NaN or inf: later ones start from weights it broke
    ops = [RunOp(op, inputs, output) for op, (inputs, output) in zip(watch.nan_prone, nan_prone)]
    made = next((op for op in ops if values.evidence_at(op) == Cause.NON_FINITE and
                 (op.type in values.SELECTS or not values.given_nonfinite(op))), None)
    if made is None:
        return  # no op on the path was seen making it: the site's observations say what was seen
    how = values.how_made(made) or "given"
    broke = symbolic.built_at(made.op) or watch.frame
    record.add(watch.call, watch.frame, [watch.names[index] for index in bad], Cause.NON_FINITE,
               broke, Symptom.NONFINITE, {"op": made.type, "how": how})
