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


@pytest.mark.parametrize("compiled", [False, True])
def test_a_none_is_said_at_the_first_cut_that_every_path_meets(compiled):
    """generative-compression's quantizer: w_hard (an argmin) goes through a stop_gradient, w_soft (a softmax) does
    not, and both then meet a round. The argmin and the stop_gradient each cut one branch only: the round is where
    the gradient was lost. On a single path (an argmax, then a comparison of its indices) the first cut is."""
    import inspect

    import tensorflow as tf

    from gradtutor import evidence

    size, levels = random.randint(2, 5), random.randint(3, 6)
    w = tf.Variable([random.uniform(-2.0, 2.0) for _ in range(size)])
    centers = tf.range(levels, dtype=tf.float32) - levels // 2

    def quantised(w):
        distance = tf.abs(w[:, None] - centers)
        hard = tf.gather(centers, tf.argmin(distance, axis=1))
        soft = tf.reduce_sum(tf.nn.softmax(-distance, axis=1) * centers, axis=1)
        return tf.round(tf.stop_gradient(hard - soft) + soft)

    def chosen(w):
        return tf.cast(tf.not_equal(tf.argmax(w[None, :] * centers[:levels, None], axis=1), 0), tf.float32)

    lines = {name: inspect.getsourcelines(f)[1] for name, f in (("quantised", quantised), ("chosen", chosen))}
    found = {}
    for name, make in (("quantised", quantised), ("chosen", chosen)):
        def step(w=w, make=make):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(make(w)))
            return tape.gradient(loss, w)

        with evidence.recording() as record:
            assert (tf.function(step)() if compiled else step()) is None
        [finding] = evidence.report(record)[0]
        found[name] = (finding["cause"], finding["broke_at"]["line"] - lines[name])
    assert found == {"quantised": ("no-gradient-op", 4), "chosen": ("no-gradient-op", 1)}, found
