"""Telling a recording's listeners what the patches saw, and the few seams only a listener needs.

A listener is a view of one recording built from the same patches as the findings (the
checker's run facts, gradtutor.evidence.reading.run_facts, are one): instrument.py calls `tell` at
each seam it already wraps, so nothing of TensorFlow is patched twice. The events, each a
method a listener may have (a missing one is not called):

    op(op_type, inputs, attrs, outputs, op_name, graph)   every eager op recorded (graph.py)
    tape_entered(tape, caller) / tape_left(tape)          a GradientTape's `with` block
    watched(tape, tensor)                                  tape.watch, before TensorFlow's
    gradient_asked(kind, tape, target, sources, unconnected, caller)
                                                           gradient / jacobian / batch_jacobian
    left(kind, caller)                                     a tensor's value taken out of TensorFlow
    numpy_function()                                       tf.numpy_function / py_func called
    forward_entered() / forward_left() / jvp(primals, caller)  a ForwardAccumulator
    unentered_jvp()                                        acc.jvp of an accumulator never entered
    weight_added(trainable)                                Keras's Layer.add_weight
    predicted()                                            keras.Model.predict (numpy out)

`caller` is the module name (`__name__`) of the code that made the call: TensorFlow's own
calls (jacobian calls gradient) are not the learner's.
"""
from __future__ import annotations

import functools
import sys

from gradtutor.evidence.recording.frames import GENERATED, converted_from, is_user_file


def tell(record, event: str, *args) -> None:
    for listener in record.listeners:
        method = getattr(listener, event, None)
        if method is not None:
            method(*args)


def caller(depth: int = 2) -> str:
    """The module name of the code that called the patched function (depth 2: the patch's caller). Code autograph
    converted counts as the code it was converted from: TensorFlow's own (pfor's loop in batch_jacobian) is
    TensorFlow's, the learner's tf.function is the learner's."""
    frame = sys._getframe(depth)
    if GENERATED in frame.f_code.co_filename:
        origin = converted_from(frame.f_code.co_filename, frame.f_lineno)
        return "" if origin is not None and is_user_file(origin[0]) else "tensorflow"
    return frame.f_globals.get("__name__", "")


def patch(record) -> None:
    """The seams findings do not need and listeners do: the tape's `with`, Keras's weights and predict (forward mode
    is forward.py's, which tells the listeners of it)."""
    from tensorflow.python.eager import backprop

    tape_class = backprop.GradientTape
    saved = {name: tape_class.__dict__[name] for name in ("__enter__", "__exit__")}
    record.originals.append((tape_class, dict(saved)))

    def enter(tape):
        tell(record, "tape_entered", tape, caller())
        return saved["__enter__"](tape)

    def leave(tape, *exc):
        tell(record, "tape_left", tape)
        return saved["__exit__"](tape, *exc)

    tape_class.__enter__ = functools.wraps(saved["__enter__"])(enter)
    tape_class.__exit__ = functools.wraps(saved["__exit__"])(leave)
    if "keras" in sys.modules:  # the checker's child imports Keras first; a script that never does has none
        _patch_keras(record, sys.modules["keras"])


def _patch_keras(record, keras) -> None:
    layer, model = keras.layers.Layer, keras.Model
    # what each class defines itself is put back (None: inherited, so the patch is deleted again)
    record.originals.append((layer, {"add_weight": layer.__dict__.get("add_weight")}))
    record.originals.append((model, {"predict": model.__dict__.get("predict")}))
    add_weight, predict = layer.add_weight, model.predict

    def adding(self, *args, **kwargs):
        tell(record, "weight_added", kwargs.get("trainable", True))
        return add_weight(self, *args, **kwargs)

    def predicting(self, *args, **kwargs):
        tell(record, "predicted")  # numpy out: a path through it leaves TensorFlow
        return predict(self, *args, **kwargs)

    layer.add_weight = functools.wraps(add_weight)(adding)
    model.predict = functools.wraps(predict)(predicting)
