"""A NaN-prone op (a log) handed a NaN by weights already broken is where the path first shows it, not where it was
shown to begin: its finding says how (facts `how: given`) and that where the first NaN was made is not known.
The same op given a 0 by finite weights made its own inf: `how: zero`."""
from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.tf


def _findings(weights):
    import tensorflow as tf

    from gradtutor import evidence

    w = tf.Variable(weights)
    x = tf.constant([random.uniform(0.5, 3.0) for _ in weights])
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.math.log(w * x))
        tape.gradient(loss, w)
    return evidence.report(record)[0]


def test_a_log_handed_broken_weights_says_where_the_nan_began_is_not_known():
    weights = [random.uniform(0.5, 2.0) for _ in range(random.randint(2, 6))]
    weights[random.randrange(len(weights))] = float("nan")
    [finding] = _findings(weights)
    assert (finding["cause"], finding["facts"]["how"]) == ("non-finite", "given")
    assert "not known" in finding["message"] and "handed one already" in finding["message"]


def test_a_log_of_a_zero_weight_made_its_own_inf():
    weights = [random.uniform(0.5, 2.0) for _ in range(random.randint(2, 6))]
    weights[random.randrange(len(weights))] = 0.0
    [finding] = _findings(weights)
    assert (finding["cause"], finding["facts"]["how"]) == ("non-finite", "zero")
