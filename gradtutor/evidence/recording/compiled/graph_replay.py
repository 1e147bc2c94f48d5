"""A compiled call run again eagerly to find a cause (traced.Tracing asks for it), and `tf.gradients` during it.

A call whose in-graph checks got worse runs again eagerly under the full recording: at once from the values it
started with (`from_kept`, snapshot.py), or as the function's next call (`beside`: on a copy of the state, the
compiled call run after it as it would have been; `replay` in its place when the state cannot be put back), or,
for fit's last step that no later call ran again, as Keras's train_step on the rows fit was given
(fit_data.step_again). Its findings say the
step the symptom first appeared at, and how it was run again.

tf.gradients works only in a graph, so run eagerly it raises. During the replay it is answered by a persistent
tape that watched the call's float arguments before the step began: every op computed from them is recorded,
and the gradient TensorFlow's graph would give comes from the tape, as a list like tf.gradients returns. The
replay's gradient call is then observed like a tape's (a NaN's birth, a cut path), at the user's tf.gradients
line. Outside the replay tf.gradients is what it was.
"""
from __future__ import annotations

import contextlib
import io
import weakref

from gradtutor.evidence.recording import frames, sampling
from gradtutor.evidence.recording.compiled import snapshot

# the replays' tapes: their gradient calls answer the user's tf.gradients, and are reported as that call
ANSWERING = weakref.WeakSet()


@contextlib.contextmanager
def tf_gradients_on_a_tape(args, kwargs):
    import tensorflow as tf

    modules = {id(m): m for m in (tf, tf.compat.v1, tf.compat.v2, tf.compat.v2.compat.v1)}.values()
    saved = [(module, module.__dict__.get("gradients")) for module in modules if "gradients" in module.__dict__]
    tape = tf.GradientTape(persistent=True)
    ANSWERING.add(tape)

    def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
                  stop_gradients=None, unconnected_gradients=tf.UnconnectedGradients.NONE, **unused):
        sources = list(xs) if isinstance(xs, (list, tuple)) else [xs]
        with tape.stop_recording():
            return list(tape.gradient(ys, sources, output_gradients=grad_ys,
                                      unconnected_gradients=unconnected_gradients))

    with tape:
        for value in tf.nest.flatten((args, kwargs)):
            if tf.is_tensor(value) and value.dtype.is_floating:
                tape.watch(value)
        for module, _ in saved:
            module.gradients = gradients
        try:
            yield
        finally:
            for module, original in saved:
                module.gradients = original


def from_kept(tracing, function, call, args, kwargs, state, kept) -> None:
    """This call's check got worse: run it again eagerly from the values it started with, then put back the
    values it left, so the program goes on as it would have (snapshot.py)."""
    try:
        with tracing.record.graph.pausing():
            after = snapshot.take(state.handles)
            snapshot.put_back(kept, shaped_as=after)
    except Exception:  # noqa: BLE001 - not restorable: the step is replayed at the next call, as before
        return
    try:
        quietly(tracing, function, call, args, kwargs, state, again=True)
    finally:
        with tracing.record.graph.pausing():
            snapshot.put_back(after)


def beside(tracing, function, call, args, kwargs, state) -> bool:
    """Run this call eagerly on a copy of the state, then put the values back for the compiled call to run as it
    would have: eager kernels round otherwise than the compiled graph's fused ones, so a replay kept in place of
    the call changes the program's numbers from that step on (a loss that stays finite plainly went NaN). False
    when the state cannot be put back (a function with effects beyond its variables): then it is replayed in place."""
    if state.handles is None or not snapshot.replayable(args, kwargs):
        return False
    try:
        with tracing.record.graph.pausing():
            before = snapshot.take(state.handles)
    except Exception:  # noqa: BLE001 - a variable that cannot be read: replayed in place, as before
        return False
    try:
        quietly(tracing, function, call, args, kwargs, state)
    finally:
        with tracing.record.graph.pausing():
            snapshot.put_back(before, shaped_as=snapshot.take(state.handles))
    return True


def quietly(tracing, *args, **kwargs) -> None:
    """`replay`, as a look into the program rather than a part of it: its failure is not the program's, nor is what
    it prints, nor are its gradient calls counted; what it recorded stays."""
    tracing.depth, asked = tracing.depth + 1, tracing.record.gradient_calls
    try:
        with contextlib.suppress(Exception), _descriptors_silenced(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            replay(tracing, *args, **kwargs)
    finally:
        tracing.depth, tracing.record.gradient_calls = tracing.depth - 1, asked


@contextlib.contextmanager
def _descriptors_silenced():
    """Standard output and error silenced below Python too: a tf.print in the replayed step prints from TensorFlow's
    kernel, past sys.stdout, and the program never printed that line."""
    import os
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved, sink = [os.dup(1), os.dup(2)], os.open(os.devnull, os.O_WRONLY)
    except OSError:  # no descriptors to silence (an embedding host): Python's own streams are silenced still
        yield
        return
    try:
        os.dup2(sink, 1)
        os.dup2(sink, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for descriptor in (*saved, sink):
            os.close(descriptor)


def replay(tracing, function, call, args, kwargs, state, again=False, run=None):
    """Run this one call eagerly, under the eager recording: its findings say the step they first appeared at.
    `run`: what to run in its place (fit_data.step_again), said as a run on fit's kept rows."""
    import tensorflow as tf

    record, first = tracing.record, state.replay_from
    state.replay_from = None
    before = {id(finding) for finding in record.findings}
    eager = tf.config.functions_run_eagerly()
    tf.config.run_functions_eagerly(True)
    record.replaying, record.observations.replayed_call = True, state.calls
    kind = record.observations.replay_kind = getattr(run, "kind", "kept") if run else "same" if again else "next"
    was_off = record.graph.off
    sampling.set_live(record, True)  # an eager loop between its sampled tapes: this call is recorded
    try:
        if run is not None:  # after the program, no user line is on the stack: the fit call stands for it
            frames.OUTSIDE[0] = run.at
            return run()
        try:
            with tf_gradients_on_a_tape(args, kwargs):  # a graph-only tf.gradients answered eagerly
                return call(function, *args, **kwargs)
        except Exception:
            # NumPy arrays given to a tf.function reach its code as tensors (its trace's inputs); run eagerly they stay
            # arrays (whose NaN the recording then sees come in at the op that takes them), which Keras refuses beside
            # tensors in one call (`model([array, tensor])`): run once more with them as the tensors they were
            given = _as_given(args, kwargs)
            if given is None:
                raise
            with tf_gradients_on_a_tape(*given):
                return call(function, *given[0], **given[1])
    finally:
        record.replaying, record.observations.replayed_call, frames.OUTSIDE[0] = False, None, None
        record.observations.replay_kind = None
        sampling.set_live(record, not was_off)
        tf.config.run_functions_eagerly(eager)
        for finding in record.findings:
            if id(finding) not in before:
                finding["facts"].update(rerun=kind)
                if first >= 0:
                    finding["facts"]["first_step"] = str(first)


def _as_given(args, kwargs):
    """(args, kwargs) with every NumPy array a tensor, as the compiled function's code received them; None when there
    is none (or the structure cannot be walked)."""
    import numpy as np
    import tensorflow as tf

    try:
        flat = tf.nest.flatten((args, kwargs))
        if not any(isinstance(value, np.ndarray) for value in flat):
            return None
        return tf.nest.map_structure(lambda v: tf.convert_to_tensor(v) if isinstance(v, np.ndarray) else v,
                                     (args, kwargs))
    except Exception:  # noqa: BLE001 - a structure nest cannot walk: not given again
        return None
