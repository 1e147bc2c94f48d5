"""Eager training loops, recorded on sampled steps: whole tape blocks, per `with` site.

Recording every op of an eager loop (a Python op callback per op, and variable reads sent
through TensorFlow's Python path so the callback sees them) costs about half a training
step again. So the ops are recorded for the first FIRST_TAPES tapes made at each
`with tf.GradientTape()` line and then for every EVERY_TAPE-th; in between the op callback
returns at once and the C fast path is TensorFlow's own. A step is recorded from the
previous `tape.gradient` of its site on, so a forward pass computed before the `with`
block is seen too.

What stays checked on every step: a gradient that comes back None (and, on the calls
checks.sampled reads, zero or NaN values). A bad gradient from a tape that was not
recorded is not explained from partial evidence: the next tape of that site is recorded,
and its finding says at which step the symptom was first seen (`facts["first_seen_step"]`).
Tapes inside a `tf.function` being traced, and a compiled call replayed eagerly
(traced.py), are always recorded.
"""
from __future__ import annotations

FIRST_TAPES, EVERY_TAPE = 5, 25


class Sampling:
    """Per `with` site (the tape's creation line): how many tapes it made, whether its next one is recorded."""

    def __init__(self):
        self.tapes: dict = {}  # site -> tapes made there (eagerly)
        self.wanting: set = set()  # sites whose next tape is recorded
        self.known: set = set()  # sites that asked for a gradient at least once
        self.flagged: set = set()  # sites whose latest unrecorded tape gave a bad gradient
        self.last: dict = {}  # site -> the gradient call count at its latest gradient
        self.gradients = 0  # eager gradient calls so far
        self.on_since = 0  # the gradient call count when recording last went on (0: from the start)
        self.first_seen: dict = {}  # (gradient frame, index) -> the step it first went wrong, unrecorded
        self.fast = self.fast_path = None  # TFE_Py_FastPathExecute: TensorFlow's, and the one reading in Python


def set_live(record, on: bool) -> None:
    """Record ops from now on, or stop (the op callback returns at once, TensorFlow's fast path is put back)."""
    graph, sampling = record.graph, record.sampling
    if on == (not graph.off):
        return
    graph.off = not on
    if on:
        sampling.on_since = sampling.gradients
    if sampling.fast is not None:
        from tensorflow.python import pywrap_tfe

        pywrap_tfe.TFE_Py_FastPathExecute = sampling.fast_path if on else sampling.fast


def tape_made(record, info, eager: bool) -> None:
    """A GradientTape was made: its step number at its site, and whether its block is recorded."""
    sampling = record.sampling
    if not eager or record.replaying or record.every_step:
        info.recorded = True
        return
    site = info.frame
    info.step = sampling.tapes[site] = sampling.tapes.get(site, 0) + 1
    if site not in sampling.known:  # a site never asked for a gradient yet: recorded from here on
        info.recorded = not record.graph.off
        sampling.wanting.add(site)
        set_live(record, True)
        return
    info.recorded = not record.graph.off and sampling.on_since <= sampling.last.get(site, 0)


def unrecorded_symptom(record, info, key) -> None:
    """A bad gradient from a tape whose block was not recorded: record the next tape of its site."""
    record.sampling.flagged.add(info.frame)
    record.sampling.first_seen.setdefault(key, info.step)


def after_gradient(record, info) -> None:
    """An eager gradient call: decide whether the next tape of this site is recorded."""
    sampling = record.sampling
    site = info.frame
    sampling.gradients += 1
    sampling.known.add(site)
    sampling.last[site] = sampling.gradients
    following = sampling.tapes.get(site, 0) + 1
    if info.recorded:
        sampling.flagged.discard(site)
    if following <= FIRST_TAPES or following % EVERY_TAPE == 0 or site in sampling.flagged:
        sampling.wanting.add(site)
    else:
        sampling.wanting.discard(site)
    set_live(record, bool(sampling.wanting))


def unlogged_call(record, calls: int) -> bool:
    """Is this call of a compiled function left out of the op log? After its first FIRST_TAPES calls, when no tape
    records and no sampled eager tape waits for the next ops: this module's rule, for a loop of compiled steps.
    Logging a call op (a few dozen inputs: the variables it captures) costs about 3 % of a millisecond's step; its
    gradients are still checked in the graph, and what it traces is still recorded. Sets `graph.off` for the call;
    the caller puts it back."""
    graph = record.graph
    if graph.off or graph.recording_tapes or record.sampling.wanting or record.every_step or calls <= FIRST_TAPES:
        return False
    graph.off = True
    return True
