"""Keras's own training step runs once eagerly under the recording (monitors.FunctionState.sampled): what only
eager values show is seen in fit too. A model whose train_step is the program's own is not run eagerly: its
Python (a counter, a print) would run once more than it does compiled. Sizes and steps are drawn."""
from __future__ import annotations

import random

import numpy as np
import pytest

from gradtutor import evidence

pytestmark = pytest.mark.tf


def _fit(own_step: bool):
    import keras

    features, batches = random.randint(2, 6), random.randint(3, 6)

    class Counting(keras.Sequential):
        steps_in_python = 0

        def train_step(self, data):
            Counting.steps_in_python += 1  # Python: once per trace compiled, once per call eagerly
            return super().train_step(data)

    kind = Counting if own_step else keras.Sequential
    model = kind([keras.Input((features,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.default_rng(features).normal(size=(batches * 4, features)).astype("float32")
    with evidence.recording() as record:
        model.fit(x, x[:, :1], batch_size=4, epochs=1, verbose=0, shuffle=False)
    eager = [s for s in record.observations.sites.values() if s.kind == "gradient"]
    return eager, Counting.steps_in_python


def test_keras_own_training_step_runs_once_eagerly_and_a_programs_own_step_never():
    eager, _ = _fit(own_step=False)
    assert [site.calls for site in eager] == [1]  # one call of the step seen eagerly, its values read
    eager, steps = _fit(own_step=True)
    assert eager == [] and steps <= 2  # traced (once or twice), never run again in Python
