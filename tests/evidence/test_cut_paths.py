"""An all-zero gradient is a stop_gradient's doing only when every path from the source to the target is cut: one
stop_gradient on one branch (tf.nn.moments puts one inside every BatchNormalization) leaves the others, and what
zeroed them (here a ReLU dead everywhere) is the cause."""
from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.tf


def _finding(both_branches: bool):
    import tensorflow as tf

    from gradtutor import evidence

    size = random.randint(2, 6)
    w = tf.Variable([random.uniform(-2.0, 2.0) for _ in range(size)])
    x = tf.constant([random.uniform(0.5, 3.0) for _ in range(size)])
    shift = random.uniform(5.0, 50.0)  # beyond every weight: the ReLU is dead everywhere
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.stop_gradient(w) * x)
            if both_branches:
                y = y + tf.reduce_sum(tf.nn.relu(w - shift))
        tape.gradient(y, w)
    [finding] = evidence.report(record)[0]
    return finding


def test_a_stop_gradient_on_one_branch_is_not_the_cause_of_zeros_the_other_branch_made():
    assert _finding(both_branches=True)["cause"] == "dead-relu"


def test_a_stop_gradient_on_the_only_path_is():
    assert _finding(both_branches=False)["cause"] == "stop-gradient"


def test_a_cut_on_one_path_whose_other_paths_cancel_is_the_stop_gradient():
    """w + stop_gradient(round(w)) - w: the two paths that flow cancel, nothing else is seen, the cut decided it."""
    import tensorflow as tf

    from gradtutor import evidence

    size = random.randint(2, 6)
    w = tf.Variable([random.uniform(-2.0, 2.0) for _ in range(size)])
    x = tf.constant([random.uniform(0.5, 3.0) for _ in range(size)])
    with evidence.recording() as record:
        with tf.GradientTape() as tape:
            q = w + tf.stop_gradient(tf.round(w * 2.0) / 2.0) - w
            loss = tf.reduce_sum(tf.square(q * x - 1.0))
        tape.gradient(loss, w)
    [finding] = evidence.report(record)[0]
    assert (finding["cause"], finding["symptom"]) == ("stop-gradient", "zeros")
