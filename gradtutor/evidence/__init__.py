"""The evidence layer: record what TensorFlow ran around a tape, and say why a gradient came back wrong.

In-process, around any call (the course's checker uses it the same way):

    from gradtutor import evidence
    with evidence.recording() as record:
        value = fn(*args)
    findings = evidence.analyse(record)   # [{"cause": "outside-tape", "broke_at": {...}, ...}]

The checker's child makes the same recording around the learner's call
(gradtutor.evidence.reading.run_facts.recording: `recording(listeners=[facts], every_step=True)`): its run
facts are a listener fed by the same patches (listening.py), the findings go into the child's result
with the learner's line they broke at, and gradtutor.evidence.reading.causes picks the cause — the first
finding whose symptom the comparison found, else the run facts. Cells compiled under a label (not
a real file) count as user code; their source is in `linecache` under that label, so
`broke_at["code"]` is filled. While recording, `tf.function`s run compiled and are analysed when
traced (traced.py); everything is put back when the block ends.

Modules: frames (which stack frame is user code), listening (what the patches tell a
recording's listeners), causes (the one precedence of causes the checker reads), graph (the op callback's record of
tensors and ops), optimizers (Keras 3's apply_gradients), traced (tf.function code, at trace time), instrument (installing and removing the patches), checks (each
tape call and its result), untracked (variables the target read but no gradient was asked for),
paths (how tensors depend on a source), cuts (where their paths are cut, walking back), analysis (cause and break line), subtle (gradients that look
fine but miss a term, restart from w0 or sit at a saturated sigmoid), raised (TensorFlow's refusals
that name a cause, from an exception leaving the block), wording (one sentence and one fix per cause); opfacts (what TensorFlow's gradient registry says of an op type), values (what an op's
kept values say), symptoms (what saturated, dead, tiny and non-finite mean, once), variable_reads
(variable reads the op callback sees), sessions (a TF1 graph's gradients, fetched when a Session runs them), root_causes (one finding per root cause, and their order). The checker's child's view: run_facts
(the facts of one learner call, a listener; it walks the same op graph, cuts.cuts_back). Only this package patches TensorFlow (tests/evidence/test_patching_seams.py); it imports
only the ground modules (protocol, messages). No printing, no CLI.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
from typing import Callable, TypedDict

from gradtutor.evidence.reading import wording
from gradtutor.protocol import Cause, Symptom
from gradtutor.evidence.recording.frames import where


class Place(TypedDict):
    file: str
    line: int
    code: str


class Finding(TypedDict):
    """One gradient that came back wrong (or one error a tape raised), as `analyse` returns it (plain JSON)."""

    file: str | None  # where the gradient was asked (the innermost user frame)
    line: int | None
    call: str  # gradient, jacobian, batch_jacobian, watch, tf.gradients
    sources: list[str]  # the names the user's code gives the sources, else a description
    cause: str  # a protocol.Cause value
    symptom: str  # none, zeros, tiny, nonfinite, error
    broke_at: Place | None  # the line where the path broke
    message: str
    fix: str
    count: int  # how many gradients went wrong this way (variables of one call, and the same call again)
    facts: dict[str, str]


@dataclasses.dataclass(frozen=True)
class Reader:
    """The reading's conclusions the recording's seams hand what they saw to, given to the recorder here: the
    recording (gradtutor.evidence.recording) never imports the reading (tests/project/test_architecture.py)."""

    gradient: Callable  # checks.gradient: a tape's gradient call, checked (its None, zero, NaN, subtle misses)
    jacobian: Callable
    watch: Callable
    tf_gradients_wrapper: Callable
    numpy_function_wrapper: Callable
    diagnose: Callable  # analysis.diagnose: why one gradient is wrong (forward.py's jvp)
    cuts_back: Callable  # cuts.cuts_back: do recorded ops lead from these nodes to those (custom_gradients.py)
    variables_read: Callable  # paths.variables_read: the variables a target was computed from (optimizers.py)
    session_watch: Callable  # sessions.watch: what a Session run must fetch to see a tf.Graph's gradients
    session_read: Callable  # sessions.read: what one run gave them (recording/compiled/graph_functions.py)


def reader() -> Reader:
    from gradtutor.evidence import cuts, sessions
    from gradtutor.evidence.reading import analysis, checks, paths

    return Reader(checks.gradient, checks.jacobian, checks.watch, checks.tf_gradients_wrapper,
                  checks.numpy_function_wrapper, analysis.diagnose, cuts.cuts_back, paths.variables_read,
                  sessions.watch, sessions.read)


class Record:
    """What one recording saw: the op graph, the tapes, every gradient call site, and the findings so far."""

    def __init__(self, listeners=(), every_step: bool = False, read: Reader | None = None):
        from gradtutor.evidence.observations import Observations
        from gradtutor.evidence.recording.graph import Graph
        from gradtutor.evidence.recording.sampling import Sampling

        self.reader = read or reader()
        self.observations = Observations()  # what each gradient call site returned or raised (observations.py)
        # (frame, index) of a gradient whose None or zeros the reading judged intended (stop_gradient keeping a
        # source out, unconnected_gradients=ZERO) -> (its cause, the source's name): a finding only if the program
        # then broke on it (reading.unexplained)
        self.excused: dict = {}
        # (frame, index) of an all-zero gradient no cause rule explained -> does the target move when the source is
        # moved a little (probe.source_moves: True, False, None when it could not be run again)
        self.zero_probes: dict = {}
        # (frame, index) of an all-zero float16/bfloat16 gradient whose target's value is below that dtype's smallest
        # normal number -> (the target's largest magnitude, the frame that computed it, the half dtype)
        # (values.below_half_range)
        self.underflows: dict = {}
        # id(tf.function) -> the Python scalars its latest trace read, and their changes since (python_state.py)
        self.python_state: dict = {}
        self.frozen: dict = {}  # id(variable handle) -> the user's line whose `layer.trainable = False` froze it
        self.trained: dict = {}  # id(Keras model) -> what its first fit or train_on_batch was given (fit_data.Trained)
        self.training_watched = False
        self.unfrozen: list = []  # weights made trainable after a compiled step was traced (compiled/unfrozen.py)
        self.sessions: dict = {}  # id(tf.Graph) -> the gradient calls a Session run of it fetches (sessions.py)
        self.script_error: BaseException | None = None  # the exception that left the recorded block, if one did
        self.graph = Graph()
        # views fed by the same patches as the findings (instrument.tell): the checker's run facts are one
        self.listeners = tuple(listeners)
        self.graph.listeners = [one.op for one in self.listeners if hasattr(one, "op")]
        # a checker's call: every tape block recorded (no sampling) and no compiled call replayed eagerly
        self.every_step = every_step
        self.tapes: collections.deque = collections.deque(maxlen=64)  # the tapes used most recently
        self.findings: list[dict] = []
        self.seen: dict = {}
        self.causes: dict = {}  # (frame, index) of a gradient call -> what diagnose found the first time
        self.none_sources: dict = {}  # id(tf.Variable) -> the cause of its latest None gradient
        self.last_call: dict | None = None  # the latest gradient call: its frame, sources, target nodes
        self.no_sources: tuple | None = None  # the key of the latest finding on a tape.gradient(loss, []) (checks.py)
        self.busy = 0
        self.originals: list = []
        self.eager_functions = False
        self.gradient_calls = 0
        self.keras_pending = False  # Keras's optimizer not patched yet: Keras was still importing (optimizers.py)
        self.replaying = False  # a compiled function's call run eagerly to explain a symptom (traced.py)
        self.sampling = Sampling()  # which eager tape blocks are recorded (sampling.py)
        self.site_calls: dict = {}  # (file, line) of a tape.gradient -> its eager calls (checks.sampled)
        self.untracked: dict = {}  # call sites and variable handles looked at by untracked.py
        self.rebound: dict = {}  # id(variable handle) -> the user's line that set its attribute to a plain value
        # (frame, index) of a gradient call -> the variable's handle node it was asked for last (analysis.restarted)
        self.previous_sources: dict = {}

    def add(self, call, frame, sources, cause, broke_frame, symptom, facts) -> None:
        """One finding per call site, cause, break line and symptom: the gradients of every variable that
        went wrong the same way are one finding, its `sources` the list of them, `count` how many gradients."""
        # unused variables said where each was made (reading.analysis._not_connected) are one finding, at the first
        key = (call, frame, cause, None if facts.get("how") == "made" else broke_frame, symptom)
        for finding in self.findings:
            if finding["_key"] == key:
                finding["count"] += max(1, len(sources))
                added = [name for name in sources if name not in finding["sources"]]
                if added:
                    finding["sources"].extend(added)
                    finding["message"] = wording.message(cause, symptom, finding["sources"], call, facts)
                return
        self.findings.append({
            "_key": key, "file": frame[0] if frame else None, "line": frame[1] if frame else None,
            "call": call, "sources": list(sources), "cause": cause, "symptom": symptom,
            "broke_at": where(broke_frame), "message": wording.message(cause, symptom, sources, call, facts),
            "fix": wording.fix(cause, call, sources, facts), "count": max(1, len(sources)),
            "facts": {k: str(v) for k, v in facts.items()},
        })


@contextlib.contextmanager
def recording(listeners=(), every_step: bool = False):
    """Instrument TensorFlow's tapes for the block; everything is put back on the way out.

    listeners: objects told of what the patches see (instrument.EVENTS), e.g. gradtutor.evidence.reading.run_facts;
    every_step: record every tape block and never replay a compiled call (one checked call, not a training run)."""
    from gradtutor.evidence.recording import instrument

    from gradtutor.evidence.reading import raised

    record = Record(listeners, every_step)
    instrument.install(record)
    try:
        yield record
    except Exception as error:  # the user's code raised: a refusal of TensorFlow's that names a cause is a finding
        raised.note(record, error)
        raise
    finally:
        instrument.uninstall(record)


def analyse(record: Record) -> list[Finding]:
    """The findings the cause rules made, as plain JSON-ready dicts (file, line, call, sources, cause, broke_at,
    message, fix, …): what the checker's run facts read."""
    return [{k: v for k, v in finding.items() if not k.startswith("_")} for finding in record.findings]


def report(record: Record) -> tuple[list[Finding], list[dict]]:
    """Everything `gradtutor explain` reports: the findings of the cause rules, then a finding for every symptom
    and every raised call they left unexplained (cause not known), one per root cause; and the call sites whose
    gradients could not be observed at all ({kind, file, line, why}). No findings and no unobserved site: every
    gradient was fine."""
    from gradtutor.evidence import flat_layers, root_causes
    from gradtutor.evidence.reading import subtle, unexplained

    added = unexplained.findings(record)  # first: an error it tells with a cause rule's finding changes that finding
    added = subtle.data_given(record, added)  # a NaN not seen made, where fit was given arrays that held one
    # gradients that came back fine from a compiled function computing with another variable or a stale Python value
    ruled = analyse(record)
    added += subtle.swapped_variables(record)
    added += subtle.unfrozen_untrained(record)
    added += subtle.stale_reads(record, ruled + added)
    findings = root_causes.one_per_root_cause(ruled + added)
    if all(f["cause"] == Cause.NOT_KNOWN and f["symptom"] in (Symptom.ZEROS, Symptom.TINY) for f in findings):
        # every gradient finite and not zero, or zeros whose cause is not known: a layer gone flat or dead, with the
        # evidence for it, is said first (what was seen and not explained stays)
        findings = flat_layers.findings(record) + findings
    return findings, unexplained.unobserved(record)


def exact_zeros(record: Record) -> list[dict]:
    """What was seen and is said beside the all-clear, not findings: all-zero gradients the evidence shows are the
    true slope (terms of the source that cancel, or a stationary point: checks.py, probe.exact_zero), each {file,
    line, sources, why, at}; the Nones a tf.stop_gradient keeps out while the target trains the call's other sources
    (why "kept": no finding, and no "fine" either); and
    the call sites whose every gradient was tiny on some call (symptoms.TINY), each {file, line, kind, calls,
    tiny: True}: a model at its minimum gives that, and so does one that stopped learning, and with no cause named
    the report says neither "fine" nor a cause (gradtutor.explain.findings_view)."""
    from gradtutor.evidence.observations import RETURNS_GRADIENTS, TINY
    from gradtutor.evidence.recording.frames import where

    found: dict = {}
    for ((file, line), _), (cause, name) in record.excused.items():
        why = cause[2].get("why") or ("kept" if cause[0] == Cause.STOP_GRADIENT else None)  # a None cut on purpose
        if why in ("terms cancel", "stationary", "kept"):
            entry = found.setdefault((file, line, why), {"file": file, "line": line, "sources": [], "why": why,
                                                         "at": where(cause[1])})
            entry["sources"].append(name)
    tiny: dict = {}  # one line of the user's code once (a fit line's compiled step and its eager replay)
    for site in record.observations.sites.values():
        if site.kind in RETURNS_GRADIENTS and site.file and site.statuses and set(site.statuses) == {TINY}:
            tiny.setdefault((site.file, site.line), {"file": site.file, "line": site.line, "kind": site.kind,
                                                     "calls": site.calls, "tiny": True})
    return list(found.values()) + list(tiny.values())


__all__ = ["Reader", "Record", "analyse", "exact_zeros", "reader", "recording", "report"]
