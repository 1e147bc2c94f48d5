"""The tape's calls, checked: each gradient that comes back None, zero or non-finite, and each error a tape raises."""
from __future__ import annotations

import functools

from gradtutor.evidence import symbolic
from gradtutor.evidence.reading import analysis
from gradtutor.evidence.reading import paths
from gradtutor.evidence.reading import probe
from gradtutor.evidence.recording import optimizers
from gradtutor.evidence.reading import raised
from gradtutor.evidence.recording import sampling
from gradtutor.evidence.recording.compiled import graph_replay
from gradtutor.evidence.reading import subtle
from gradtutor.evidence.reading import untracked
from gradtutor.evidence.reading import values as values_of
from gradtutor.evidence.recording.frames import user_frame, user_frame_object
from gradtutor.evidence.recording.listening import tell
from gradtutor.evidence.observations import EVERY, FINITE, FIRST_CALLS
from gradtutor.evidence.symptoms import UNSHOWN
from gradtutor.evidence.recording.tapes import tape_info
from gradtutor.protocol import Cause, Symptom
# The values of an eager call's gradients (zero? tiny? NaN?) are read on the first FIRST_CALLS calls of each
# tape.gradient line and then on every EVERY-th (observations.py: a copy to numpy on every step costs a few per cent
# of a training step); a None is checked on every call.


def sampled(record, frame) -> bool:
    calls = record.site_calls[frame] = record.site_calls.get(frame, 0) + 1
    # a replay (traced.py) and a checked call read them all
    return calls <= FIRST_CALLS or calls % EVERY == 0 or record.replaying or record.every_step


def symptom(record, gradient) -> Symptom | None:
    """none, nonfinite, zeros, tiny (gradtutor.evidence.symptoms), or None for a gradient that looks fine: its values
    as the call's observations read them (once, bfloat16 as float32, an IndexedSlices' rows)."""
    if gradient is None:
        return Symptom.NONE
    found = record.observations.values(gradient)
    return None if found is None or found[0] == FINITE else Symptom(found[0])


def _call(record, tape, call, target, sources, original, zero_fill=False):
    """zero_fill: the call asked for zeros where there is no path (unconnected_gradients=ZERO)."""
    graph = record.graph
    record.gradient_calls += 1
    if record.keras_pending:
        optimizers.patch_when_loaded(record)
    info = tape_info(record, tape)
    if info not in record.tapes:
        record.tapes.append(info)
    frame = user_frame(3)
    graph.paused += 1
    try:
        result = original()
    except Exception as error:
        graph.paused -= 1
        raised.tape_error(record, info, call, frame, error, target, sources)
        raise
    graph.paused -= 1
    try:  # the reading's own failure is never the program's: the gradients go back as TensorFlow made them
        _read(record, info, call, frame, target, sources, result, zero_fill)
    except Exception:  # noqa: BLE001 - what was found before it stays in the record
        pass
    return result


def _read(record, info, call, frame, target, sources, result, zero_fill) -> None:
    """What one gradient call returned, checked: each None, zero or NaN gradient diagnosed, a fine one's subtle
    misses looked for."""
    import tensorflow as tf

    graph = record.graph
    if info.gradient_frame is None:
        info.gradient_frame = frame
    # a tf.Variable given as the target is known by its handle: what was written into it is its history
    flat_targets = [getattr(t, "handle", t) if isinstance(t, tf.Variable) else t
                    for t in tf.nest.flatten(target) if tf.is_tensor(t)]
    flat_sources = tf.nest.flatten(sources)
    flat_results = tf.nest.flatten(result)
    if len(flat_results) != len(flat_sources):
        return
    step = graph.add_step("gradient", flat_targets + [_tensor_of(s) for s in flat_sources],
                          [g for g in flat_results if tf.is_tensor(g)], frame)
    step.attrs = {"targets": len(flat_targets)}  # the inputs before are its targets, the sources after (paths.py)
    # what an optimizer given these gradients next may need (optimizers.py)
    record.last_call = {"frame": frame, "sources": bool(flat_sources),
                        "targets": step.inputs[:len(flat_targets)]}
    if not flat_sources and isinstance(sources, (list, tuple)):
        _no_sources(record, info, call, frame, step.inputs[:len(flat_targets)])
    values = tf.executing_eagerly()
    if graph.traced is not None and not values:  # being traced: values are checked in the graph
        graph.traced.watch_gradients(frame, flat_results)
    eager = values and not record.replaying
    if values:  # a tape recorded because its site's previous gradient went wrong unrecorded: read it too
        values = sampled(record, frame) or info.frame in record.sampling.flagged
    trains_some = any(gradient is not None for gradient in flat_results)
    for index, (source, gradient) in enumerate(zip(flat_sources, flat_results)):
        found = symptom(record, gradient) if values or gradient is None else None
        if found is None and record.replaying and gradient is not None and \
                record.observations.compiled_nonfinite(frame, index):
            found = Symptom.NONFINITE
        key = (frame, index)
        if found is None:
            if values and key not in record.seen:  # a gradient that looks fine may still miss terms, or be lost
                wrong = subtle.partly_outside(record, info, flat_targets, source) or \
                    subtle.restarted(record, key, source) or \
                    subtle.zero_where_saturated(record, info, flat_targets, source, gradient)
                if wrong is not None:
                    record.seen[key] = 1
                    record.add(call, frame, [_name(source, index)], wrong[0], wrong[1], Symptom.VALUES, wrong[2])
            continue
        if key in record.seen:  # this call already went wrong: the first time was analysed
            record.seen[key] += 1
            if found == Symptom.NONE:
                record.none_sources[id(analysis.tf_object(source))] = record.causes.get(key)
            continue
        if not info.recorded:  # its ops went unrecorded: explained on the next tape of this site
            sampling.unrecorded_symptom(record, info, key)
            continue
        record.seen[key] = 1
        cause = record.causes[key] = analysis.diagnose(record, info, flat_targets, source, found)
        if cause is not None and key in record.sampling.first_seen:
            cause = (cause[0], cause[1], {**cause[2], "first_seen_step": record.sampling.first_seen[key]})
        if found == Symptom.NONE:  # an optimizer given this None next says so with this cause (optimizers.py)
            record.none_sources[id(analysis.tf_object(source))] = cause
        if cause is not None and cause[0] == Cause.NOT_USED and found == Symptom.ZEROS and zero_fill:
            record.excused[key] = (cause, _name(source, index))
            continue  # unconnected_gradients=ZERO asked for zeros where there is no path (batch_jacobian's own are not)
        if cause is not None and cause[0] == Cause.INTEGER_PATH and _watched_integer(record, info, source):
            record.excused[key] = (cause, _name(source, index))  # one root cause, said once: at the tape.watch
            continue
        if cause is not None and cause[0] == "stop-gradient" and found == "none" and trains_some:
            # the target trains other sources of this call: a stop_gradient keeping these out is the cut's
            # documented use; their None is a finding only if it reaches an optimizer (optimizers.py) or the
            # program breaks on it (a clip_by_norm of None: unexplained.py)
            record.excused[key] = (cause, _name(source, index))
            continue
        if cause is not None and not probe.cancels_beneath(record.graph, info, flat_targets, source, cause[0], found):
            record.add(call, frame, [_name(source, index)], cause[0], cause[1], found, cause[2])
        elif found == Symptom.ZEROS:  # no rule explains it: is zero the exact slope (reading.unexplained says which)?
            moved, half = probe.source_moves(record.graph, info, flat_targets, source)
            record.zero_probes[key] = moved
            made = record.graph.known(flat_targets[0])  # the target's line: where to scale it or compute in float32
            made = made.frame if made is not None else None
            if half:  # in a wider float the target moves: half precision rounded the gradient to 0 (or unshown)
                record.underflows[key] = (None if moved else UNSHOWN, made, half)
            exact = None if moved or half else probe.exact_zero(record.graph, info, flat_targets, source)
            if exact is not None:  # terms that cancel (a WGAN critic's bias), a minimum (L2 at 0): zero is exact
                record.excused[key] = ((Cause.NOT_KNOWN, exact[0].frame, {"why": exact[1]}), _name(source, index))
            if moved is None:  # in half precision the probe cannot tell; the target's own size can
                tiny = values_of.below_half_range(flat_targets, gradient)
                if tiny is not None:
                    record.underflows[key] = (tiny[0], made, tiny[1])
    untracked.check(record, call, frame, step.inputs[:len(flat_targets)], flat_sources)
    if eager and not record.every_step:
        sampling.after_gradient(record, info)


def _no_sources(record, info, call, frame, target_nodes) -> None:
    """tape.gradient(loss, []) while the loss reads variables: the list meant to name them came out empty. The tape
    watched them (trainable, read under it): the list is not theirs (a layer that does not track them); it did not:
    they are not trainable (add_weight(trainable=False))."""
    read = paths.variables_read(target_nodes)
    if not read:
        return
    frozen = [record.frozen[id(node.ref())] for node in read if id(node.ref()) in record.frozen]
    if frozen:  # Keras left them out of trainable_variables: the line that froze their layer is the one to change
        record.add(call, frame, [], Cause.UNWATCHED, frozen[0], Symptom.ERROR,
                   {"why": "frozen", "variables_read_by_target": len(read)})
        record.no_sources = (call, frame, Cause.UNWATCHED, frozen[0], Symptom.ERROR)
        return
    tape = info.tape()
    watched = {id(v.handle) for v in (tape.watched_variables() if tape is not None else ())}
    cause = Cause.NOT_USED if any(id(node.ref()) in watched for node in read) else Cause.UNWATCHED
    broke = read[0].frame or frame
    record.add(call, frame, [], cause, broke, Symptom.ERROR, {"variables_read_by_target": len(read)})
    record.no_sources = (call, frame, cause, broke, Symptom.ERROR)  # an optimizer given [] next says it instead


def _tensor_of(source):
    source = analysis.tf_object(source)
    return getattr(source, "handle", source)


def _name(source, index) -> str:
    """The name the user's code gives this source, else a description."""
    frame = user_frame_object(4)
    if frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for name, value in scope.items():
                if value is source and not name.startswith("_"):
                    return name
    name = getattr(source, "path", None) or getattr(source, "name", None)  # a Keras 3 variable has a path
    if name and hasattr(source, "trainable"):  # a variable
        return str(name).split(":")[0]
    shape = getattr(source, "shape", None)
    return f"source {index} (shape {tuple(shape) if shape is not None else '?'})"


def gradient(record, tape, target, sources, output_gradients, unconnected, saved):
    def original():
        kwargs = {} if unconnected is None else {"unconnected_gradients": unconnected}
        return saved["gradient"](tape, target, sources, output_gradients, **kwargs)

    if record.busy:
        return original()
    record.busy += 1
    try:
        call = "tf.gradients" if tape in graph_replay.ANSWERING else "gradient"  # a compiled step's, replayed
        return _call(record, tape, call, target, sources, original, "ZERO" in str(unconnected))
    finally:
        record.busy -= 1


def jacobian(record, call, tape, target, sources, args, kwargs, saved):
    import tensorflow as tf

    def original():
        eager = tf.config.functions_run_eagerly()
        tf.config.run_functions_eagerly(False)  # pfor vectorises through a tf.function
        try:
            return saved[call](tape, target, sources, *args, **kwargs)
        finally:
            tf.config.run_functions_eagerly(eager)

    if record.busy:
        return original()
    record.busy += 1
    try:
        return _call(record, tape, call, target, sources, original, "ZERO" in str(kwargs.get("unconnected_gradients")))
    finally:
        record.busy -= 1


def _watched_integer(record, info, source) -> bool:
    """Was `source` an integer tensor given to this tape's watch (a cannot-watch finding there already)?"""
    return record.graph.known(source) in info.watched and not source.dtype.is_floating


def watch(record, tape, tensor, original):
    import tensorflow as tf

    frame = user_frame(3)
    try:
        original(tape, tensor)
    except Exception as error:
        # tape.watch before `with tape:` finds no recording tape (its _tape is None): outside the tape
        outside = isinstance(error, AttributeError) and "_tape" in str(error)
        cause = Cause.OUTSIDE_TAPE if outside else Cause.CANNOT_WATCH
        record.add("watch", frame, [], cause, frame, Symptom.ERROR, {"error": str(error)})
        raise
    info = tape_info(record, tape)
    if info not in record.tapes:
        record.tapes.append(info)
    for item in tf.nest.flatten(tensor):
        item = analysis.tf_object(item)
        if isinstance(item, tf.Variable):
            node = record.graph.node_of(item.handle, frame)
            info.watched.append(node)
            info.watched_at.setdefault(node, (record.graph.seq, frame))
        elif tf.is_tensor(item):
            if not (item.dtype.is_floating or item.dtype.is_complex):  # TensorFlow only warns, and does not watch it
                record.add("watch", frame, [], Cause.CANNOT_WATCH, frame, Symptom.ERROR, {"how": "dtype"})
            node = record.graph.node_of(item, frame)
            info.watched.append(node)
            info.watched_at.setdefault(node, (record.graph.seq, frame))


def tf_gradients_wrapper(record, original):
    import tensorflow as tf

    @functools.wraps(original)
    def gradients(*args, **kwargs):
        if tf.executing_eagerly():
            frame = user_frame()
            record.add("tf.gradients", frame, [], Cause.TF_GRADIENTS_EAGER, frame, Symptom.ERROR, {})
        result = original(*args, **kwargs)
        if not tf.executing_eagerly() and not record.busy:
            symbolic.note_nones(record, args, kwargs, result)
        return result

    return gradients


def numpy_function_wrapper(record, original):
    """tf.numpy_function runs Python on numpy copies: record it as a step whose values left TensorFlow."""
    import tensorflow as tf

    @functools.wraps(original)
    def numpy_function(func, inp, Tout, *args, **kwargs):
        if record.listeners:
            tell(record, "numpy_function")
        result = original(func, inp, Tout, *args, **kwargs)
        if tf.executing_eagerly():
            record.graph.add_step("PyFunc", [t for t in tf.nest.flatten(inp) if tf.is_tensor(t)],
                                  [t for t in tf.nest.flatten(result) if tf.is_tensor(t)], user_frame())
        return result

    return numpy_function
