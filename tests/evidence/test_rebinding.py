"""A variable replaced by a plain value through its attribute (gradtutor.evidence.recording.rebinding): noted only when
the attribute held a variable and is given something that is not one; the setter is put back afterwards.

No TensorFlow: a variable is a value with `assign` and a handle, an owner a class defining its own setter.
"""
from __future__ import annotations

import random
import types

import pytest

from gradtutor.evidence.recording import rebinding

pytestmark = pytest.mark.unit


class Variable:
    def __init__(self):
        self.handle = object()

    def assign(self, value):
        return value


def _owner():
    class Module:
        def __setattr__(self, name, value):
            object.__setattr__(self, name, value)

    return Module


def test_an_attribute_holding_a_variable_set_to_a_plain_value_is_noted_and_nothing_else_is():
    rng = random.Random(seed := random.randrange(2**32))
    owner, record = _owner(), types.SimpleNamespace(originals=[], rebound={})
    rebinding.patch_class(record, owner)
    module = owner()
    kept, dropped, swapped = Variable(), Variable(), Variable()
    module.kept, module.dropped, module.swapped = kept, dropped, swapped
    module.dropped = rng.choice([0.1, 3, "0.5", [1.0, 2.0]])  # GPflow 1's way of setting a value
    module.swapped = Variable()  # a variable for a variable: variable_replaced's other cases, not this one
    module.fresh = rng.random()  # a new attribute: nothing was held before
    assert list(record.rebound) == [id(dropped.handle)], seed
    assert record.originals == [(owner, {"__setattr__": record.originals[0][1]["__setattr__"]})]
    assert module.dropped is not dropped and module.kept is kept


def test_a_class_without_its_own_setter_is_left_as_it_is():
    record = types.SimpleNamespace(originals=[], rebound={})
    plain = type("Plain", (), {})
    rebinding.patch_class(record, plain)
    assert record.originals == [] and "__setattr__" not in plain.__dict__
