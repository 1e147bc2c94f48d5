"""Forward mode: a ForwardAccumulator records like a tape, and `acc.jvp(target)` is its gradient call.

`acc.jvp` returns None when the target was not computed from the primals while the accumulator
was recording: the primals and tangents swapped (the target depends on the other tensor), the
target computed after the `with` block, an accumulator never entered with `with` at all (it
recorded nothing), or a path TensorFlow's forward mode cannot follow. The
accumulator's block is a recording "tape" to the op graph (graph.recording_tapes), its primals
its watched tensors, so the same analysis as for a backward tape names the cause and the line
(gradtutor.evidence.reading.analysis); listeners are told of the block and the call (listening.py).
"""
from __future__ import annotations

import functools

from gradtutor.evidence.recording.frames import raised_at, user_frame, user_frame_object
from gradtutor.evidence.recording.listening import caller, tell
from gradtutor.evidence.recording.tapes import TapeInfo, tf_object
from gradtutor.protocol import Cause, Symptom


def patch(record) -> None:
    from tensorflow.python.eager import forwardprop

    accumulator = forwardprop.ForwardAccumulator
    saved = {name: accumulator.__dict__[name] for name in ("__init__", "__enter__", "__exit__", "jvp")}
    record.originals.append((accumulator, dict(saved)))
    graph = record.graph

    def init(acc, primals, tangents, *args, **kwargs):
        saved["__init__"](acc, primals, tangents, *args, **kwargs)
        acc.__dict__["_gradtutor"] = (TapeInfo(acc, user_frame(), True, False), primals)

    def enter(acc):
        tell(record, "forward_entered")
        result = saved["__enter__"](acc)
        info, primals = acc.__dict__.get("_gradtutor", (None, None))
        if info is not None:
            info.pushed = graph.seq
            info.forward = True
            import tensorflow as tf

            for primal in tf.nest.flatten(primals):
                primal = tf_object(primal)
                node = graph.node_of(primal.handle if isinstance(primal, tf.Variable) else primal, info.frame)
                info.watched.append(node)
            graph.began(info)
        return result

    def leave(acc, *exc):
        tell(record, "forward_left")
        info = acc.__dict__.get("_gradtutor", (None,))[0]
        if info is not None:
            graph.ended(info)
        return saved["__exit__"](acc, *exc)

    def jvp(acc, primals, *args, **kwargs):
        tell(record, "jvp", primals, caller())
        info = acc.__dict__.get("_gradtutor", (None,))[0]
        if info is not None and not info.forward:  # made, never entered with `with`: it recorded nothing
            tell(record, "unentered_jvp")
        if record.busy:
            return saved["jvp"](acc, primals, *args, **kwargs)
        site = record.observations.called("jvp", user_frame())
        try:
            result = saved["jvp"](acc, primals, *args, **kwargs)
        except Exception as error:
            record.observations.raised(site, error, raised_at(error))
            raise
        import tensorflow as tf

        flat = tf.nest.flatten(result) if result is not None else [None]
        record.observations.gradients(site, flat, tf.executing_eagerly() and record.observations.reads_values(site))
        _check(record, acc, primals, result)
        return result

    for name, function in (("__init__", init), ("__enter__", enter), ("__exit__", leave), ("jvp", jvp)):
        setattr(accumulator, name, functools.wraps(saved[name])(function))


def _check(record, acc, targets, result) -> None:
    """A None for a target: why, for each primal the accumulator was given (one finding per cause and line)."""
    import tensorflow as tf

    info, primals = acc.__dict__.get("_gradtutor", (None, None))
    if info is None:
        return
    flat_targets, flat_results = tf.nest.flatten(targets), tf.nest.flatten(result)
    if len(flat_targets) != len(flat_results) or all(r is not None for r in flat_results):
        return
    frame = user_frame(3)
    if not info.forward:  # never entered: nothing was recorded, whatever the primals; the line that made it speaks
        record.add("jvp", frame, _names(primals), Cause.OUTSIDE_TAPE, info.frame, Symptom.NONE, {"unentered": True})
        return
    record.busy += 1
    try:
        for target, value in zip(flat_targets, flat_results):
            if value is not None or not tf.is_tensor(target):
                continue
            found = [record.reader.diagnose(record, info, [target], primal, Symptom.NONE) for primal in tf.nest.flatten(primals)]
            found = [cause for cause in found if cause is not None]
            if found and len(found) == len(tf.nest.flatten(primals)):
                # the target depends on no primal: the first primal's cause speaks (they went wrong together)
                cause, broke, facts = found[0]
                record.add("jvp", frame, _names(primals), cause, broke, Symptom.NONE, facts)
    finally:
        record.busy -= 1


def _names(primals) -> list[str]:
    """The names the user's code gives the primals (h0), else a description."""
    import tensorflow as tf

    frame = user_frame_object(3)
    scopes = (frame.f_locals, frame.f_globals) if frame is not None else ()
    names = []
    for index, primal in enumerate(tf.nest.flatten(primals)):
        name = next((key for scope in scopes for key, value in scope.items() if value is primal and not key.startswith("_")),
                    None)
        names.append(name or f"primal {index}")
    return names
