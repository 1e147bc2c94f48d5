"""Light run-time facts about one call of a learner's function, recorded in the child that runs it.

A listener (gradtutor.evidence.recording.listening) on the one recording `gradtutor explain` makes too: the
same patches tell it which op types ran while a tape was recording and which tensors were made then: enough to tell the parent
what the code *did* (gradtutor.checking.diagnose turns facts into a cause) — a source never watched, a
target made outside the recording, a value taken out of TensorFlow (.numpy(), np.*,
tf.numpy_function), a variable assigned or replaced between gradient calls, the op that broke the
path (walked back on the recording's one op graph, gradtutor.evidence.cuts.cuts_back, through the
gradient registry as `gradtutor explain` reads it), a saturated activation, the first op whose
gradient is not finite at its values — and, per cause it can place, the learner's line (`broke_at`,
quoted). A RunFacts dict (payloads).
"""
from __future__ import annotations

import contextlib
import linecache
import sys

import numpy as np

from gradtutor.evidence.recording import opfacts
from gradtutor.evidence import symptoms
from gradtutor.evidence.cuts import cuts_back
from gradtutor.evidence.recording import variable_reads
from gradtutor.evidence.reading.values import evidence_at, kept_value
from gradtutor.messages import say
from gradtutor.protocol import Cause

# ops whose output has no gradient with respect to a float input (TensorFlow's own loops and masks
# compare integer counters; only a float input turned integer-valued counts)
INTEGER_OPS = frozenset({"ArgMax", "ArgMin", "Round", "Floor", "Ceil", "Sign", "Cast", "TopKV2"})
MAX_OPS = 64  # op types kept in the payload
OUTSIDE_SITES = 4096  # lines kept of tensors made outside the tape: a flood of ops costs no more than these
LIBRARIES = ("tensorflow", "keras", "numpy", "optree", "absl", "gradtutor")  # their own conversions are not the learner's
MAX_FINDINGS = 16  # findings kept in the payload


class _Recorder:
    def __init__(self, args, labels: frozenset = frozenset()):
        self.args = args
        self.labels = labels
        self.record = None  # the one recording (gradtutor.evidence.Record): its op graph is walked at a gradient call
        self.tape_sites: dict = {}  # id(tape) -> the learner's line that opened it (`with tf.GradientTape() …`)
        self.last_sources: list = []  # the previous gradient call's sources, to see one replaced
        self.active = 0  # tapes recording now
        self.inside: set = set()  # _id of tensors made while a tape was recording
        self.used: set = set()  # _id of tensors an op read while a tape was recording
        self.outside: set = set()  # _id of tensors this call made while no tape recorded
        self.outside_sites: dict = {}  # _id of the first of them -> the learner's line that made it
        self.watched_now: list = []  # what tape.watch was given
        self.facts: dict = {}

    def note(self, key, value=True):
        self.facts[key] = value

    def leaves(self, key: str) -> None:  # a value left TensorFlow while recording: at the learner's line
        self.note(key)
        self.here("leaves-tensorflow")

    def describe(self, value) -> str:
        for index, arg in enumerate(self.args):
            if value is arg:
                return f"input {index}"
        kind = type(value)
        if isinstance(value, np.ndarray) or isinstance(value, np.generic):
            return "a numpy array"
        if "keras" in kind.__module__ and kind.__name__ == "Variable":
            return "a keras.Variable"
        return "a variable" if "Variable" in kind.__name__ else "another tensor"

    def op(self, op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if graph is None and outputs and getattr(getattr(outputs[0], "dtype", None), "name", "") == "float64" and \
                "dtype" not in self.facts.get("broke_at", {}) and opfacts.widens_to_float64(inputs, outputs):
            self.here("dtype")  # the learner's line that first turned a narrower float into float64
        if not self.active and graph is None:
            made = [t._id for t in outputs or () if getattr(t, "_id", None) is not None]
            self.outside.update(made)
            if made and len(self.outside_sites) < OUTSIDE_SITES:
                self.outside_sites[made[0]] = learner_site(self.labels)
        if self.active and graph is None:
            if any(getattr(t, "_id", None) in self.outside for t in inputs or ()):
                self.note("outside_input")
            op_type = op_type.decode() if isinstance(op_type, bytes) else str(op_type)
            ops = self.facts["ops"]
            if op_type not in ops and len(ops) < MAX_OPS:
                ops.append(op_type)
            if op_type in INTEGER_OPS and inputs and inputs[0].dtype.is_floating and \
                    (op_type != "Cast" or outputs and not outputs[0].dtype.is_floating):
                self.note("integer_op", op_type)
            if op_type in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
                self.note("assigned_variable")  # a layer's state (or the learner) wrote a variable: that line
                self.here("state-breaks-path")
            if op_type == "Softmax":  # a whole softmax row sums to 1: the line that ran it
                self.here("softmax-sum")
            if op_type == "StopGradient":
                self.note("stop_gradient")
            if op_type == "EagerPyFunc":  # tf.py_function: its gradient re-runs the Python on a tape of its own
                self.note("py_function")
            if op_type in symptoms.SATURATING and outputs and "saturated" not in self.facts and \
                    symptoms.saturated_somewhere(op_type, kept_value(outputs[0])):
                self.note("saturated")  # anywhere: a zero there is explained
            if op_type in opfacts.RISKY and "nonfinite_at" not in self.facts and \
                    evidence_at(_Op(op_type, (inputs or (), outputs or ()))) is Cause.NON_FINITE:
                self.note("nonfinite_at", learner_site(self.labels) or "")
            self.used.update(getattr(t, "_id", None) for t in inputs or ())
            self.inside.update(getattr(t, "_id", None) for t in outputs or ())
        return None

    def is_watched(self, tape, source) -> bool:
        inner = variable_reads.inner_variable(source)
        if any(inner is variable_reads.inner_variable(w) for w in self.watched_now):
            return True
        trainable = getattr(inner, "trainable", False) and hasattr(inner, "assign")
        return bool(trainable and getattr(tape, "_watch_accessed_variables", True))

    def gradient(self, tape, target, sources, unconnected):
        self.facts["gradient_calls"] += 1
        if self.active and getattr(tape, "_recording", False):
            self.note("gradient_while_recording")
        if "ZERO" in str(unconnected):
            self.note("zero_fill")
        targets = target if isinstance(target, (list, tuple)) else [target]
        for one in targets:
            if isinstance(one, (np.ndarray, np.generic, float, int)):
                self.note("target_left_tensorflow")
                self.here("leaves-tensorflow")  # the call given a number
            elif getattr(one, "_id", None) is not None and one._id not in self.inside:
                self.note("target_outside")
                self.broke_at("outside-tape", self.outside_sites.get(one._id))  # the line that made it
            shape = getattr(one, "shape", ())
            if len(targets) > 1 or shape is not None and np.prod([d or 1 for d in shape]) > 1:
                self.note("nonscalar_target")
        flat = sources if isinstance(sources, (list, tuple)) else [sources]
        if isinstance(sources, (list, tuple)) and not sources:
            self.note("no_sources")
        if isinstance(sources, dict):
            return
        if any(not self.is_watched(tape, s) for s in flat):
            self.note("source_unwatched")
            if not getattr(tape, "_watch_accessed_variables", True):  # its `with` line turned watching off
                self.broke_at("unwatched", self.tape_sites.get(id(tape)))
        self.replaced(flat)
        graph = self.record.graph
        known = [graph.known(t) for t in targets if hasattr(t, "_id")]
        sources = {graph.known(variable_reads.variable_handle(s)) for s in flat} - {None}
        reached, cuts = cuts_back([node for node in known if node is not None], sources)
        if cuts and not reached and "path_break" not in self.facts:
            self.note("path_break", cuts[0][0])
            self.broke_at(cuts[0][0], self.site_of(cuts[0][2]))
        carried = [(cause, frame) for cause, mask, frame in cuts if not mask]
        if carried and "path_cut" not in self.facts:
            self.note("path_cut", carried[0][0])
            self.broke_at(carried[0][0], self.site_of(carried[0][1]))

    def site_of(self, frame) -> str | None:
        """An op's frame as the checker quotes it, when it is the learner's (one of their cells)."""
        if frame is None or frame[0] not in self.labels:
            return None
        return site_text(frame[0], frame[1], linecache.getline(frame[0], frame[1]).strip())

    def broke_at(self, cause: str, site: str | None) -> None:
        if site and cause not in self.facts.setdefault("broke_at", {}):
            self.facts["broke_at"][cause] = site

    def here(self, cause: str) -> None:  # the learner's line running now, for `cause`: one frame walk
        if cause not in self.facts.get("broke_at", {}):
            self.broke_at(cause, learner_site(self.labels))

    def replaced(self, sources: list) -> None:
        """A source that was a variable in the last gradient call is now a tensor, or another variable
        of the same name and shape: the name was rebound (w = w - lr * g, or a new tf.Variable per step)."""
        for old, new in zip(self.last_sources, sources):
            if old is new or not variable_reads.is_variable(old) or getattr(old, "shape", None) != getattr(new, "shape", None):
                continue
            if not variable_reads.is_variable(new) or getattr(new, "name", None) == getattr(old, "name", None):
                self.note("variable_replaced")
        self.last_sources = list(sources)


    # ---------------------------------------------------------------- events (gradtutor.evidence.recording.listening)
    def tape_entered(self, tape, caller: str) -> None:
        self.learner_call("tapes", caller)
        self.tape_sites[id(tape)] = learner_site(self.labels)
        self.active += 1
        self.facts["tapes"] = self.facts.get("tapes", 0) + 1

    def tape_left(self, tape) -> None:
        self.active = max(0, self.active - 1)

    def watched(self, tape, tensor) -> None:
        for one in tensor if isinstance(tensor, (list, tuple)) else [tensor]:
            self.facts["watch_calls"].append(self.describe(one))
            self.watched_now.append(one)
            if variable_reads.tensor_id(one) in self.used:
                self.note("watched_late")

    def gradient_asked(self, kind, tape, target, sources, unconnected, caller: str) -> None:
        self.learner_call("gradient" if kind == "gradient" else "jacobian", caller)  # batch_jacobian is a Jacobian
        if kind != "gradient" and not caller.startswith(LIBRARIES):
            self.note("jacobian_called")
        self.gradient(tape, target, sources, unconnected)

    def left(self, kind: str, caller: str) -> None:  # a value left TensorFlow while recording: at the learner's line
        if self.active and not caller.startswith(LIBRARIES):
            self.leaves("left_tensorflow")

    def predicted(self) -> None:  # keras.Model.predict returns numpy, whoever calls it
        if self.active:
            self.leaves("left_tensorflow")

    def numpy_function(self) -> None:  # eagerly, its Python runs on numpy copies: the result is a constant
        if self.active:
            self.leaves("numpy_function")

    def weight_added(self, trainable) -> None:
        if trainable is False:
            self.note("frozen_variable")  # made, tracked, and left out of trainable_variables

    def forward_entered(self) -> None:  # forward mode records like a tape: acc.jvp is its gradient call
        self.active += 1

    def forward_left(self) -> None:
        self.active = max(0, self.active - 1)

    def jvp(self, primals, caller: str) -> None:
        self.learner_call("jvp", caller)
        self.facts["gradient_calls"] += 1
        if not caller.startswith(LIBRARIES):
            self.note("forward_mode")  # the learner's own forward-mode call: a Jacobian's layout is theirs to stack
        for one in primals if isinstance(primals, (list, tuple)) else [primals]:
            if getattr(one, "_id", None) is not None and one._id not in self.inside:
                self.note("target_outside")

    def unentered_jvp(self) -> None:  # acc.jvp of an accumulator never entered with `with`: it recorded nothing
        self.note("accumulator_unentered")

    def learner_call(self, kind: str, caller: str) -> None:
        """Count a call by the learner's code, not TensorFlow's (jacobian calls gradient)."""
        if not caller.startswith(LIBRARIES):
            calls = self.facts.setdefault("learner_calls", {})
            calls[kind] = calls.get(kind, 0) + 1


@contextlib.contextmanager
def recording(args, into: dict, labels: frozenset = frozenset()):
    """Record facts into `into` (a RunFacts dict) while the learner's function runs (its cells: `labels`): a view of
    the one recording `gradtutor explain` makes too, whose findings (those at the learner's lines) go in as well."""
    from gradtutor import evidence

    recorder = _Recorder(args, labels=labels)
    recorder.facts = into
    into.update({"watch_calls": [], "ops": [], "gradient_calls": 0})
    with evidence.recording(listeners=[recorder], every_step=True) as record:
        recorder.record = record
        try:
            yield recorder.facts
        finally:
            into["findings"] = findings_at(evidence.analyse(record), labels)


def findings_at(findings: list, labels: frozenset) -> list:
    """The analysis's findings in the payload's terms: cause, symptom and the learner's line it broke at (quoted)."""
    kept = []
    for finding in findings[:MAX_FINDINGS]:
        broke = finding.get("broke_at") or {}
        site = site_text(broke["file"], broke["line"], broke.get("code", "")) if broke.get("file") in labels else None
        kept.append({"cause": finding["cause"], "symptom": finding["symptom"], "site": site,
                     "sources": [str(name) for name in finding.get("sources") or ()][:MAX_FINDINGS],
                     "restarted": bool((finding.get("facts") or {}).get("restarted"))})
    return kept


class _Op:
    """An op as gradtutor.evidence.reading.values reads it: its type and its (inputs, outputs) tensors."""

    def __init__(self, type_: str, values):
        self.type, self.values = type_, values


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
