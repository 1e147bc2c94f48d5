"""A Keras model's step runs once eagerly, at its first call, under the recording (monitors.SAMPLED_CALL): what only
eager values show is seen in fit too, from the weights the program starts with. The program sees nothing of it: what
the step's Python prints is shown as often as without the recording (compiled, Python runs only while traced, and
the step is traced at its next call), and a program's own tf.function is never run eagerly for it. Sizes, batches
and which step kind are drawn."""
from __future__ import annotations

import contextlib
import io
import random

import numpy as np
import pytest

from gradtutor import evidence

pytestmark = pytest.mark.tf


def _fit(own_step: bool, recorded: bool, features: int, batches: int):
    import keras

    class Printing(keras.Sequential):
        def train_step(self, data):
            print("train_step's Python ran")  # compiled: once per trace
            return super().train_step(data)

    model = (Printing if own_step else keras.Sequential)([keras.Input((features,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.default_rng(features).normal(size=(batches * 4, features)).astype("float32")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), (evidence.recording() if recorded else contextlib.nullcontext()) as record:
        model.fit(x, x[:, :1], batch_size=4, epochs=1, verbose=0, shuffle=False)
    eager = [s for s in record.observations.sites.values() if s.kind == "gradient"] if recorded else []
    return eager, shown.getvalue().count("train_step's Python ran")


@pytest.mark.parametrize("own_step", [False, True])
def test_a_keras_step_runs_once_eagerly_at_its_first_call_and_prints_as_often_as_without(own_step):
    features, batches = random.randint(2, 6), random.randint(3, 6)
    eager, printed = _fit(own_step, True, features, batches)
    assert [(site.calls, site.read) for site in eager] == [(1, 1)]  # the first step seen eagerly, its values read
    _, plain = _fit(own_step, False, features, batches)
    assert printed == plain


def test_a_programs_own_tf_function_is_never_run_eagerly_for_it():
    import tensorflow as tf

    calls_in_python = []
    w = tf.Variable(tf.ones((random.randint(2, 5), 1)))

    @tf.function
    def step(x):
        calls_in_python.append(1)  # Python: only while traced
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.matmul(x, w))
        return tape.gradient(loss, w)

    with evidence.recording() as record:
        for _ in range(random.randint(2, 5)):
            step(tf.ones((3, w.shape[0])))
    assert len(calls_in_python) == 1 and not [s for s in record.observations.sites.values() if s.kind == "gradient"]
