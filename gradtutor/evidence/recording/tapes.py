"""What gradtutor knows of each GradientTape, kept on the tape itself while recording, and the variable a source is."""
from __future__ import annotations

import weakref


class TapeInfo:
    """What gradtutor knows of one GradientTape."""

    __slots__ = ("__weakref__", "forward", "frame", "gradient_frame", "persistent", "pushed", "recorded", "step",
                 "tape", "thread", "watch_accessed", "watched", "watched_at")

    def __init__(self, tape, frame, persistent, watch_accessed):
        self.tape = weakref.ref(tape)
        self.frame, self.persistent, self.watch_accessed = frame, persistent, watch_accessed
        self.watched = []  # nodes of the tensors passed to watch()
        self.watched_at: dict = {}  # node -> (the op count when it was first watched, the watch() frame)
        self.gradient_frame = None  # where it was first asked for a gradient
        self.recorded = True  # its block's ops were recorded (sampling.py); a tape made before the recording: yes
        self.step = 0  # the how-many-th tape made at its `with` line (sampling.py)
        self.pushed = 0  # the op count when its block began recording (0: before the recording)
        self.thread = None  # the thread it records in (TensorFlow's tape stack is per thread): graph.began
        self.forward = False  # a ForwardAccumulator's block (forward.py): its primals are what it "watches"


def tape_info(record, tape) -> TapeInfo:
    info = tape.__dict__.get("_gradtutor")
    if info is None:  # a tape made before the recording began
        info = TapeInfo(tape, None, tape._persistent, tape._watch_accessed_variables)
        tape.__dict__["_gradtutor"] = info
    return info


def tf_object(source):
    """A keras.Variable's tf.Variable; anything else as it is (a source is known by the variable it wraps)."""
    import tensorflow as tf

    if isinstance(source, (tf.Variable, tf.Tensor)):
        return source
    value = getattr(source, "value", None)
    return value if isinstance(value, tf.Variable) else source
