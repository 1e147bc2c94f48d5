"""Which op broke the path from a gradient's target back to its source, read from the ops that ran.

The checker's run facts (gradtutor.evidence.run_facts) keep, for every tensor made while a tape
recorded, the op that made it and that op's inputs. At a gradient call the walk goes back
from the target through ops whose gradient flows; an op whose gradient does not (what
gradtutor.evidence.opfacts reads in TensorFlow's gradient registry: stop_gradient, round, argmax,
comparisons, a Python function, a cast to an integer type) ends that branch. The first
such op, nearest the target, that has the source upstream of it is where the path broke:
when no flowing path reaches the source, its cause id is the fact `path_break`; whether or
not one does, the nearest such op that carries values (not a comparison's mask) is
`path_cut` — why a connected gradient can still be zero. Ops TensorFlow ran inside a tf.function are one
call op here, as the eager tape sees them.

The same pass notes saturation: a sigmoid, tanh or softmax output with an element at its limit
(gradtutor.evidence.symptoms) flattens the slope there to zero; and the first
op whose values make its gradient inf or NaN (sqrt or log at 0, a division by 0, a tf.where
branch that is not finite: gradtutor.evidence.values, as `gradtutor explain` reads it).
"""
from __future__ import annotations

import linecache
import sys


from gradtutor.evidence import opfacts, symptoms, values
from gradtutor.messages import say
from gradtutor.protocol import Cause

MAX_NODES = 50_000  # tensors remembered per call; past it the walk sees a partial graph (no break is named)
SHAPE_ONLY = frozenset({"Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike", "Fill", "Range"})
KIND_CAUSE = {"stop": Cause.STOP_GRADIENT, "python": Cause.LEAVES_TENSORFLOW, "none": Cause.NO_GRADIENT_OP,
              "zero": Cause.NO_GRADIENT_OP, "missing": Cause.NO_GRADIENT_OP}


class TapeGraph:
    """Tensor id → (op type, input ids, cause id if the op's gradient does not flow), for one call."""

    def __init__(self, site=lambda: None):
        self.site = site  # the learner's file and line running now ("code cell 3 (In [5]), line 4: …"), or None
        self.made: dict = {}
        self.full = False
        self.saturated = False
        self.nonfinite_at: str | None = None  # the first op whose values make its gradient inf or NaN

    def add(self, op_type: str, inputs, outputs) -> None:
        if op_type in symptoms.SATURATING and outputs and not self.saturated:  # anywhere: a zero there is explained
            self.saturated = symptoms.saturated_somewhere(op_type, values.kept_value(outputs[0]))
        if op_type in opfacts.RISKY and self.nonfinite_at is None and \
                values.evidence_at(_Op(op_type, (inputs or (), outputs or ()))) is Cause.NON_FINITE:
            self.nonfinite_at = self.site() or ""
        if self.full or not outputs:
            return
        ids = tuple(getattr(t, "_id", None) for t in inputs or ())
        stops = _stops(op_type, inputs or (), outputs)
        mask = all(t.dtype.is_bool for t in outputs)  # a comparison picks values, it carries none
        site = self.site() if stops not in (None, "shape-only") else None  # only where a path can break
        for tensor in outputs:
            if getattr(tensor, "_id", None) is not None:
                self.made[tensor._id] = (op_type, ids, stops, mask, site)
        self.full = len(self.made) >= MAX_NODES

    def walk(self, target_ids, source_ids) -> tuple[bool, list[tuple[str, bool, str | None]]]:
        """Is a source reached through ops whose gradient flows? And the ops that cut a path the source
        had, nearest the target first, as (cause id, whether the op's output is a mask, the learner's line)."""
        frontier, seen, reached, cuts = list(target_ids), set(), False, []
        while frontier:  # breadth first: the cut nearest the target comes first
            following = []
            for tid in frontier:
                if tid in source_ids:
                    reached = True
                if tid in seen or tid in source_ids:
                    continue
                seen.add(tid)
                made = self.made.get(tid)
                if made is None:
                    continue
                _, inputs, stops, mask, site = made
                if stops is None:
                    following.extend(inputs)
                elif stops != "shape-only" and self._upstream(inputs, source_ids):
                    cuts.append((stops, mask, site))
            frontier = following
        return reached, cuts

    def _upstream(self, ids, source_ids) -> bool:
        stack, seen = list(ids), set()
        while stack:
            tid = stack.pop()
            if tid in source_ids:
                return True
            if tid in seen:
                continue
            seen.add(tid)
            made = self.made.get(tid)
            if made is not None:
                stack.extend(made[1])
        return False


class _Op:
    """An op as gradtutor.evidence.values reads it: its type and its (inputs, outputs) tensors."""

    def __init__(self, type_: str, values):
        self.type, self.values = type_, values


def _stops(op_type: str, inputs, outputs) -> Cause | str | None:
    """The cause id of an op through which no gradient reaches its float inputs; None when it flows
    (and for ops that read only a tensor's shape: no value passes through them to be cut)."""
    if op_type in SHAPE_ONLY:
        return "shape-only"
    kind = opfacts.gradient_kind(op_type)
    if kind in KIND_CAUSE:
        return KIND_CAUSE[kind]
    floats_in = any(getattr(t, "dtype", None) is not None and t.dtype.is_floating for t in inputs)
    integer_out = all(t.dtype.is_integer for t in outputs)
    if floats_in and integer_out:
        return Cause.INTEGER_PATH  # a cast (or any op) from floats to integers: integers carry no gradient
    return None


def learner_site(labels: frozenset) -> str | None:
    """The learner's innermost line running now, as "code cell 3 (In [5]), line 4: q = tf.round(w)"."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename not in labels:
        frame = frame.f_back
    if frame is None:
        return None
    code = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return site_text(frame.f_code.co_filename, frame.f_lineno, code)


def site_text(where: str, line: int, code: str) -> str:
    """A learner's line as the checker quotes it: "code cell 3 (In [5]), line 4: q = tf.round(w)"."""
    return say("files.line_code", where=where, line=line, code=code) if code else say("files.line", where=where, line=line)
