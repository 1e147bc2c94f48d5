"""What the recording saw of every gradient call, before anything is concluded: typed records, one per call site.

The recording (gradtutor.evidence.recording) writes them at each place a gradient is born or used
— a tape's gradient, jacobian and batch_jacobian, a ForwardAccumulator's jvp, the gradients a
compiled step returned (read from its in-graph monitor, traced.py), an optimizer given None —
whatever the reading later makes of them. The reading (gradtutor.evidence.reading.unexplained)
concludes from these records only: a symptom no cause rule explained is still a finding, and
`gradtutor explain` says "every gradient came back fine" only when every site was observed
and every gradient it returned was finite and not all zero. This module sits below both halves.

A site is (kind, file, line): a training loop's ten thousand calls of one `tape.gradient` line are
one record whose statuses are the worst each gradient ever had.
"""
from __future__ import annotations

import dataclasses
import inspect
import re

import numpy as np

from gradtutor.evidence.symptoms import symptom_and_peak

# what one gradient of a call was seen to be, best first; a site keeps the worst of each gradient's
FINITE, TINY, ZEROS, NONFINITE, NONE = "finite", "tiny", "zeros", "nonfinite", "none"
WORSE = {FINITE: 0, TINY: 1, ZEROS: 2, NONFINITE: 3, NONE: 4}
BAD = frozenset({ZEROS, NONFINITE, NONE})  # a tiny gradient is only reported when a cause explains it
# the kinds of call a site can be
KINDS = ("gradient", "jacobian", "batch_jacobian", "jvp", "compiled", "apply_gradients", "trace", "custom_gradient")
RETURNS_GRADIENTS = KINDS[:5]  # the kinds whose gradients must be seen (the others are seen raising, or given None)
# read the values of an eager call's gradients on its site's first FIRST_CALLS calls, then every EVERY-th
FIRST_CALLS, EVERY = 20, 10
CUSTOM_GRADIENT_MODULE = "tensorflow/python/ops/custom_gradient.py"  # where tf.custom_gradient checks a grad_fn


# NaN/inf gradients whose largest finite value first grew this many times over the calls before exploded, and
# overflowed: an overflow made the NaN (cause non-finite), though why they grew is not known
GROWTH = 1e3


@dataclasses.dataclass
class Site:
    """One place in the user's code where gradients were asked for, made by a compiled step, or given to an optimizer."""

    kind: str
    file: str | None
    line: int | None
    calls: int = 0
    statuses: list[str] = dataclasses.field(default_factory=list)  # the worst seen, per gradient of the call
    dtypes: list[str] = dataclasses.field(default_factory=list)
    read: int = 0  # calls whose gradients' values were read (or checked in the graph)
    error: str | None = None  # the first exception the call raised, as "Type: message"
    error_at: tuple | None = None  # (file, line) of the innermost user line it passed through
    unobserved: str | None = None  # why the values of its gradients could not be seen, if never read
    # (file, line) of the `def` of a custom gradient function TensorFlow's custom_gradient module itself refused
    # (refused_grad_fn): the error was raised there, about that function's signature or what it returned
    grad_fn_at: tuple | None = None
    # the largest finite magnitude among a read call's gradients: on the first call read, and the largest of any call
    # read before the first NaN or inf (how they grew before they overflowed), with the calls they were seen at
    first_peak: tuple[int, float] | None = None
    peak: tuple[int, float] | None = None
    nonfinite_call: int | None = None
    # first_peak and peak are the largest of a step's mean magnitudes, not of one value: read by a compiled step's
    # monitor (recording/compiled/monitors.Growth), which keeps no single values
    summed: bool = False
    reruns: set = dataclasses.field(default_factory=set)  # the kinds of eager re-runs it was called in (replay_kind)

    def bad(self) -> list[tuple[int, str]]:
        return [(index, status) for index, status in enumerate(self.statuses) if status in BAD]

    def overflow_limit(self) -> float:
        """The square root of the largest value of the site's float dtype when a finite gradient read before its first
        NaN or inf was beyond it (its square overflows: it had already exploded, though on one call only), else 0. Not
        for a compiled step's means (its largest value is not known)."""
        if self.summed or not (self.peak and self.nonfinite_call and self.peak[0] < self.nonfinite_call):
            return 0.0
        try:
            limit = float(np.sqrt(np.finfo(self.dtype()).max))
        except (TypeError, ValueError):  # not a float dtype numpy knows (bfloat16): no limit said
            return 0.0
        return limit if self.peak[1] >= limit else 0.0

    def dtype(self) -> str:
        return next((d for d in self.dtypes if d), "float32")


class Observations:
    """Every site of a recording, in the order they were first seen."""

    def __init__(self):
        self.sites: dict[tuple, Site] = {}
        self._read: dict[int, tuple] = {}  # id -> (tensor, what its values show): one call's gradients, read once
        # frame -> names, for each line that called a tf.custom_gradient function with tensors by keyword (the first
        # call's): TensorFlow takes only its positional tensors as inputs, so a gradient for such a tensor is one
        # too many (custom_gradients)
        self.keyword_tensors: dict = {}
        # name -> (file, line) of the gradient function each tf.custom_gradient function traced in a graph returned
        # (recording/custom_gradients.py): a graph's tape names only the op when what it returned does not fit
        self.grad_fns: dict = {}
        self.replayed_call: int | None = None  # the function's call a compiled step run eagerly is (call_of)
        # which step that eager run is: "same" or "kept" (the step that showed the symptom, from its kept weights),
        # "next" (the call after it: that step's weights and inputs were not kept)
        self.replay_kind: str | None = None

    def values(self, gradient) -> tuple[str, float | None] | None:
        """(status, largest finite magnitude) of an eager gradient's values (an IndexedSlices' rows), None when they
        cannot be read: read once per call, however many ask (the reading's checks, then these observations)."""
        tensor = getattr(gradient, "values", gradient)
        known = self._read.get(id(tensor))
        if known is not None and known[0] is tensor:
            return known[1]
        value = _value(tensor)
        if value is None:
            found = None
        else:
            symptom, peak = symptom_and_peak(value)
            found = (str(symptom or FINITE), peak)
        self._read[id(tensor)] = (tensor, found)
        return found

    def site(self, kind: str, frame) -> Site:
        file, line = frame if frame else (None, None)
        key = (kind, file, line)
        found = self.sites.get(key)
        if found is None:
            found = self.sites[key] = Site(kind, file, line)
        return found

    def called(self, kind: str, frame) -> Site:
        self._read.clear()  # the previous call's gradients are not kept alive
        site = self.site(kind, frame)
        site.calls += 1
        if self.replay_kind is not None:
            site.reruns.add(self.replay_kind)
        return site

    def reads_values(self, site: Site) -> bool:
        """Are this call's values read? The first calls of a site and then every EVERY-th (a copy costs time)."""
        return site.calls <= FIRST_CALLS or site.calls % EVERY == 0

    def gradients(self, site: Site, results, values: bool) -> None:
        """The gradients one call returned: None is always seen; values (eager tensors) when `values`."""
        if len(site.statuses) < len(results):
            site.statuses += [FINITE] * (len(results) - len(site.statuses))
            site.dtypes += [""] * (len(results) - len(site.dtypes))
        read, peaks = False, []
        for index, gradient in enumerate(results):
            if gradient is None:
                status = NONE
            else:
                site.dtypes[index] = getattr(getattr(gradient, "dtype", None), "name", "") or ""
                found = self.values(gradient) if values else None
                if found is None:
                    continue
                read = True
                status, peak = found
                peaks.append(peak)
            if status == NONFINITE and site.nonfinite_call is None:
                site.nonfinite_call = self.call_of(site)
            if WORSE[status] > WORSE[site.statuses[index]]:
                site.statuses[index] = status
        if read or all(g is None for g in results):
            site.read += 1
        self._read.clear()
        peak = max((p for p in peaks if p is not None), default=None)
        call = self.call_of(site)
        if peak is not None and (site.nonfinite_call is None or site.nonfinite_call == call):
            site.first_peak = site.first_peak or (call, peak)
            if site.peak is None or peak > site.peak[1]:
                site.peak = (call, peak)

    def call_of(self, site: Site) -> int:
        """The call a site's gradients are counted at: its own calls, or, while a compiled step runs again eagerly (a
        replay), that step's call of its function (`replayed_call`), so that its values and the step's monitor
        (observations.grown) count calls alike."""
        return self.replayed_call if self.replayed_call is not None else site.calls

    def codes(self, site: Site, codes: list[int]) -> None:
        """A compiled step's gradients as its in-graph monitor left them (monitors.CODES: 1 tiny, 2 zeros, 3 NaN/inf)."""
        statuses = {0: FINITE, 1: TINY, 2: ZEROS, 3: NONFINITE}
        if len(site.statuses) < len(codes):
            site.statuses += [FINITE] * (len(codes) - len(site.statuses))
            site.dtypes += [""] * (len(codes) - len(site.dtypes))
        for index, code in enumerate(codes):
            status = statuses.get(code, FINITE)
            if WORSE[status] > WORSE[site.statuses[index]]:
                site.statuses[index] = status
        site.read += 1

    def compiled_nonfinite(self, frame, index: int) -> bool:
        """Did the compiled step's monitor at this line see gradient `index` NaN/inf? Its eager re-run (from the values
        the step began with) may compute it finite: XLA (jit_compile=True) differentiates a tf.where's dropped branch
        at its inf, where eager TensorFlow passes 0; the re-run's path holds the values the step had, so it is read
        for what makes one (reading/checks.py)."""
        site = self.sites.get(("compiled", *frame)) if frame else None
        return site is not None and index < len(site.statuses) and site.statuses[index] == NONFINITE

    def grown(self, site: Site, growth) -> None:
        """How a compiled step's gradients grew before their first NaN or inf (monitors.Growth), joined over the
        traces the site's function ran: the earliest first step, the largest peak, the earliest NaN."""
        if growth.first is None:
            return
        site.summed = True
        if site.first_peak is None or growth.first[0] < site.first_peak[0]:
            site.first_peak = growth.first
        if site.peak is None or growth.peak[1] > site.peak[1]:
            site.peak = growth.peak
        if growth.broke is not None and (site.nonfinite_call is None or growth.broke < site.nonfinite_call):
            site.nonfinite_call = growth.broke

    def raised(self, site: Site, error: BaseException, at=None) -> None:
        """The call raised `error`, passing through the user's line `at` (frames.raised_at)."""
        if site.error is None:
            said, kind = last_line(error), type(error).__name__
            site.error, site.error_at = (said if said.startswith(kind + ":") else f"{kind}: {said}"), at
            site.grad_fn_at = refused_grad_fn(error, self.grad_fns)

    def unread(self, site: Site, why: str) -> None:
        if site.unobserved is None:
            site.unobserved = why

    def unobserved(self) -> list[Site]:
        """Sites whose gradients were never seen: neither read eagerly nor checked in a compiled graph."""
        return [site for site in self.sites.values()
                if site.kind in RETURNS_GRADIENTS and site.calls and not site.read and site.error is None]


def last_line(error: BaseException) -> str:
    """The exception's last line of text (a tf.function's error ends with the op's own), "" if it has none or its
    __str__ raises (the user's exception passes on as it is, never one of its __str__'s)."""
    try:
        text = str(error)
    except BaseException:  # noqa: BLE001 - anything a hostile __str__ raises
        return ""
    # a Keras layer's error: its message, then the arguments of the call ("Arguments received by …: • x=…"), in bold
    text = ANSI.sub("", text.split(KERAS_ARGUMENTS, 1)[0] if KERAS_ARGUMENTS in text else text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


KERAS_ARGUMENTS, ANSI = "Arguments received by", re.compile(r"\x1b\[[0-9;]*m")


# TensorFlow's graph tape, when a gradient function returned more or fewer gradients than its op has inputs
MISCOUNTED = re.compile(r"Recorded operation '([^']+)' returned too (?:few|many) gradients")


def refused_grad_fn(error: BaseException, grad_fns=None) -> tuple | None:
    """(file, line) of the gradient function TensorFlow's tf.custom_gradient refused, when the error was raised in
    that module's own code (not in the user's grad_fn it called) with the function at hand: its `grad_fn`. A traced
    function's error is re-raised by autograph as a new one, the original in its __context__ chain."""
    seen = 0
    while error is not None and seen < 4:
        tb, last = error.__traceback__, None
        while tb is not None:
            last, tb = tb, tb.tb_next
        frame = last.tb_frame if last is not None else None
        if frame is not None and frame.f_code.co_filename.replace("\\", "/").endswith(CUSTOM_GRADIENT_MODULE):
            grad_fn = frame.f_locals.get("grad_fn")
            code = getattr(inspect.unwrap(grad_fn), "__code__", None) if callable(grad_fn) else None
            if code is not None and not code.co_filename.replace("\\", "/").endswith(CUSTOM_GRADIENT_MODULE):
                return code.co_filename, code.co_firstlineno
        miscounted = MISCOUNTED.search(last_line(error))
        if miscounted and miscounted[1] in (grad_fns or {}):  # a custom gradient traced in a graph (grad_fns)
            return grad_fns[miscounted[1]]
        error, seen = error.__context__, seen + 1
    return None


def _value(gradient):
    """The numpy value of an eager gradient (an IndexedSlices' rows), without the recording's own exit patches;
    None for a symbolic tensor (a graph being traced)."""
    values = getattr(gradient, "values", gradient)
    read = getattr(values, "_numpy", None)
    if read is None:
        return None
    try:
        value = read()
    except Exception:  # noqa: BLE001 - a value that cannot be copied (a symbolic tensor) is unread
        return None
    # bfloat16 is a numpy dtype of kind "V": its zeros and NaN are read as float32 (no value changes)
    return value.astype("float32") if getattr(value, "dtype", None) is not None and value.dtype.kind == "V" else value
