"""Variables the target was computed from but no gradient was asked for: an unbuilt model, an untracked weight.

Nothing comes back None in either case, so the tape's result alone says nothing:
- `tape.gradient(loss, [])`: the list was read from a model before its first call (Keras makes a
  layer's weights then), while the target did read variables;
- a bare `tf.Variable` held by a Keras layer (an attribute, or in a list attribute): Keras 3 tracks
  only its own variables, so `trainable_variables` leaves it out and it is never trained. It is named
  only when a Keras layer holds it *and* that layer's `weights` do not list it — a variable some other
  model tracks (a GAN's discriminator read by the generator's loss) is not a finding.
The layers are those of the models the user's frame names (its locals and its module's globals), looked at
once per call site.
"""
from __future__ import annotations

from gradtutor.protocol import Cause
from gradtutor.evidence.reading import paths
from gradtutor.evidence.recording.tapes import tf_object
from gradtutor.evidence.recording.frames import user_frame_object


def check(record, call, frame, target_nodes, sources) -> None:
    """After a gradient call (once per call site: the target's whole history is walked)."""
    if frame in record.untracked:
        return
    record.untracked[frame] = True
    read = paths.variables_read(target_nodes)
    if not read:
        return
    if not sources:
        if any(f["_key"] == record.no_sources and f["facts"].get("why") == "frozen" for f in record.findings):
            return  # checks._no_sources named the line that froze them: one finding per root cause
        if read[0].frame is not None:
            record.add(call, frame, [], Cause.NOT_USED, read[0].frame, "none", {"sources": "empty list"})
        return
    asked = {id(getattr(tf_object(source), "handle", None)) for source in sources}
    missing = [node for node in read if node.ref() is not None and id(node.ref()) not in asked and node.frame]
    if not missing:
        return
    untracked = _untracked_variables(user_frame_object(2))
    for node in missing:
        name = untracked.get(id(node.ref()))
        if name is not None:
            record.add(call, frame, [name], Cause.NOT_USED, node.frame, "none", {"keras": "untracked tf.Variable"})


def _untracked_variables(frame) -> dict:
    """id(handle) -> name of each trainable tf.Variable that a Keras layer of the user's models holds (an
    attribute, or in a list, tuple or dict attribute) without listing it in its weights."""
    import tensorflow as tf

    if frame is None:
        return {}
    found = {}
    for layer in _layers(frame):
        try:
            tracked = {id(getattr(tf_object(w), "handle", None)) for w in layer.weights}
        except ValueError:  # Keras 2: a model never built has no weights to list
            continue
        for value in list(vars(layer).values()):
            items = list(value.values()) if isinstance(value, dict) else \
                list(value) if isinstance(value, (list, tuple)) else [value]
            for item in items:
                if isinstance(item, tf.Variable) and item.trainable and id(item.handle) not in tracked:
                    found[id(item.handle)] = str(item.name).split(":")[0]
    return found


def _layers(frame) -> list:
    """The Keras layers of every model or layer named in the user's frame (its locals, its module's globals)."""
    seen, layers = set(), []
    for scope in (frame.f_locals, frame.f_globals):
        for value in list(scope.values()):
            if not _is_layer(value) or id(value) in seen:
                continue
            for layer in [value, *value._flatten_layers(include_self=False)]:
                if id(layer) not in seen:
                    seen.add(id(layer))
                    layers.append(layer)
    return layers


def _is_layer(value) -> bool:
    return any(cls.__name__ == "Layer" and cls.__module__.split(".")[0] in ("keras", "tf_keras")
               for cls in type(value).__mro__) and hasattr(value, "_flatten_layers")
