"""tf.gradients while a compiled step is replayed eagerly (gradtutor.evidence.recording.compiled.graph_replay): it
answers from a tape that watched the call's float arguments, as tf.gradients would in the graph (a list, one
gradient per source, the targets summed), and is put back after, where called eagerly it raises again."""
from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.tf


def test_tf_gradients_answers_from_a_tape_during_the_replay_and_is_put_back_after():
    import tensorflow as tf

    from gradtutor.evidence.recording.compiled import graph_replay

    before = tf.gradients
    size = random.randint(1, 5)
    x = tf.constant([random.uniform(-2.0, 2.0) for _ in range(size)])
    scale = random.uniform(0.5, 3.0)
    with graph_replay.tf_gradients_on_a_tape((x,), {}):
        inner = x * scale
        targets = [tf.reduce_sum(inner ** 2), tf.reduce_sum(inner)]
        one = tf.gradients(targets, inner)
        both = tf.compat.v1.gradients(targets[0], [x, inner])
    assert isinstance(one, list) and len(one) == 1 and len(both) == 2
    assert tf.reduce_max(tf.abs(one[0] - (2 * inner + 1))).numpy() < 1e-5
    assert tf.reduce_max(tf.abs(both[0] - 2 * inner * scale)).numpy() < 1e-4
    assert tf.gradients is before
    with pytest.raises(RuntimeError):
        tf.gradients(tf.reduce_sum(x), x)
