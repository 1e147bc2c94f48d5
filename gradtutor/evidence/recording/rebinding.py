"""Where an attribute that held a variable was set to something else: `model.noise_variance = 0.1` on a tf.Module or a
Keras layer (GPflow 1's way of setting a parameter's value, carried into TF 2).

The model then computes with the new value, and the variable the program still holds (in a list of parameters taken
before, an optimizer's) is read by nothing: its gradient is None, and the line to change is the one that set the
attribute (`.assign(0.1)` keeps the variable). The attribute setters of TensorFlow's trackable objects (tf.Module)
and of Keras's layers are wrapped while recording; `record.rebound` maps the variable's handle id to the user's
line that set it (reading.analysis reads it for a variable the target did not depend on).
"""
from __future__ import annotations

import functools

from gradtutor.evidence.recording.frames import user_frame
from gradtutor.evidence.recording.variable_reads import inner_variable, is_variable

REBOUND = 1024  # attributes kept: a program that rebinds in a loop keeps its first ones


def patch_trackable(record) -> None:
    """tf.Module's setter (TensorFlow's AutoTrackable): imported with TensorFlow, so patched at once."""
    from tensorflow.python.trackable import autotrackable

    patch_class(record, autotrackable.AutoTrackable)


def patch_class(record, owner) -> None:
    """Wrap `owner.__setattr__` (when the class defines its own) to note a variable replaced by a plain value."""
    original = getattr(owner, "__dict__", {}).get("__setattr__")
    if original is None:
        return
    record.originals.append((owner, {"__setattr__": original}))
    rebound = record.rebound

    @functools.wraps(original)
    def __setattr__(obj, name, value):
        old = getattr(obj, "__dict__", {}).get(name)
        original(obj, name, value)
        if old is None or old is value or len(rebound) >= REBOUND:
            return
        try:
            if is_variable(old) and not is_variable(value):
                handle = getattr(inner_variable(old), "handle", None)
                if handle is not None:
                    rebound.setdefault(id(handle), user_frame())
        except Exception:  # noqa: BLE001 - a value that cannot be looked at is only unseen
            pass

    owner.__setattr__ = __setattr__
