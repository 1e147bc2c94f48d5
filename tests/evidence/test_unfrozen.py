"""Weights unfrozen after a compiled step was traced (gradtutor.evidence.recording.compiled.unfrozen): said only when
a step traced before the unfreezing ran on without a new trace, read the weight, and left it as it was.

No TensorFlow: a weight is a value with a handle, a compiled function its trace count, its state its calls and the
handles its traces read; values are drawn from a seeded generator.
"""
from __future__ import annotations

import types

import numpy as np
import pytest

from gradtutor.evidence.recording.compiled import unfrozen

pytestmark = pytest.mark.unit

SEEDS = range(5)


class Weight:
    def __init__(self, value, trainable=False):
        self.value, self.trainable, self.handle, self.path = value, trainable, object(), "model/dense/kernel"

    def numpy(self):
        return self.value


class Function:
    def __init__(self):
        self.count = 1

    def experimental_get_tracing_count(self):
        return self.count


def _record(function, state):
    tracing = types.SimpleNamespace(keep=[function], functions={id(function): state})
    return types.SimpleNamespace(graph=types.SimpleNamespace(traced=tracing), unfrozen=[])


def _unfreeze(rng):
    weight = Weight(rng.normal(size=int(rng.integers(2, 20))).astype("float32"))
    function, state = Function(), types.SimpleNamespace(calls=int(rng.integers(1, 9)), per_call=1, reads=set())
    state.reads.add(id(weight.handle))
    record = _record(function, state)
    weight.trainable = True  # what `layer.trainable = True` did
    unfrozen.note(record, [weight], ("train.py", 28))
    return record, weight, function, state


@pytest.mark.parametrize("seed", SEEDS)
def test_a_weight_the_old_trace_ran_on_without_changing_is_said(seed):
    rng = np.random.default_rng(seed)
    record, weight, function, state = _unfreeze(rng)
    calls = int(rng.integers(1, 6))
    state.calls += calls
    [event] = record.unfrozen
    assert event.untrained_by() == (function, calls) and event.frame == ("train.py", 28)


@pytest.mark.parametrize("seed", SEEDS)
def test_nothing_is_said_when_the_step_was_traced_again_or_trained_it_or_never_ran_or_never_read_it(seed):
    rng = np.random.default_rng(seed)
    record, weight, function, state = _unfreeze(rng)
    [event] = record.unfrozen
    assert event.untrained_by() is None  # not run since
    state.calls += 1
    function.count += 1  # compile() again: a new trace sees the weight
    assert event.untrained_by() is None
    function.count -= 1
    weight.value = weight.value + np.float32(rng.uniform(1e-3, 1.0))  # it trained: another step took it
    assert event.untrained_by() is None
    weight.value = event.value.copy()
    state.reads.clear()  # a step that never reads the weight leaves it alone, rightly
    assert event.untrained_by() is None


@pytest.mark.parametrize("seed", SEEDS)
def test_no_step_traced_before_and_a_layer_set_again_add_nothing(seed):
    rng = np.random.default_rng(seed)
    weight = Weight(rng.normal(size=3).astype("float32"), trainable=True)
    function = Function()
    idle = types.SimpleNamespace(calls=0, per_call=0, reads=set())  # asks for no gradient
    record = _record(function, idle)
    unfrozen.note(record, [weight], ("train.py", 5))
    assert record.unfrozen == []
    record, weight, function, state = _unfreeze(rng)
    unfrozen.note(record, [weight], ("train.py", 28))  # a sublayer's setter, then the layer's: once per line
    assert len(record.unfrozen) == 1
