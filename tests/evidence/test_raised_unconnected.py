"""A gradient call that raised while making zeros for an unconnected Keras 3 variable
(`unconnected_gradients=ZERO`, gradtutor.evidence.reading.raised.tape_error): its finding says why it raised —
a source the target never reaches — and `--fix` offers no patch, giving that reason.

The error is made here, not raised by TensorFlow: on TF 2.21 that gradient call can crash the process instead of
raising, now and then, which a test cannot live with. Its text is the one TensorFlow raises (tensorflow#116636).
"""
from __future__ import annotations

import random
import types

import pytest

pytestmark = pytest.mark.tf

TEXTS = ("'ResourceVariable' object has no attribute 'dtype'", "'str' object has no attribute '_type_enum'")


def test_zeros_asked_for_an_unconnected_keras_variable_are_told_as_an_unused_source(tmp_path):
    import keras

    from gradtutor.evidence import Record
    from gradtutor.evidence.reading import raised
    from gradtutor.explain.fix import plan as plans

    layer = keras.layers.Dense(random.randint(1, 5))
    layer.build((None, random.randint(1, 5)))
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nwith tf.GradientTape() as tape:\n    loss = tf.constant(1.0)\n"
                      "g = tape.gradient(loss, w, unconnected_gradients=tf.UnconnectedGradients.ZERO)\n")
    frame = (str(script), 4)
    record = Record()
    raised.tape_error(record, types.SimpleNamespace(gradient_frame=None), "gradient", frame,
                      AttributeError(random.choice(TEXTS)), None, layer.trainable_variables)
    [finding] = [{k: v for k, v in f.items() if not k.startswith("_")} for f in record.findings]
    assert finding["cause"] == "cannot-watch" and finding["facts"]["how"] == "unconnected_zero"
    assert "unconnected_gradients=ZERO" in finding["message"] and "tape.watch" not in finding["message"]
    assert finding["fix"].startswith("drop unconnected_gradients=ZERO")
    plan = plans.make(str(script), [finding])
    assert plan.patched == script.read_text() and [m.reason for m in plan.manual] == ["unconnected_zero"]
