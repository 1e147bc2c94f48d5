"""Why tf.gradients in a graph returned None, read from the graph TensorFlow built (gradtutor.evidence.symbolic):
an integer source, a value written into a variable and read back, an op whose gradient does not flow; a target
that does not depend on the source at all names no cause. Shapes and names are drawn."""
from __future__ import annotations

import random

import pytest

pytestmark = pytest.mark.tf


def _graph():
    import tensorflow as tf

    graph = tf.Graph()
    size = random.randint(2, 5)
    return graph, size


def test_an_integer_source_is_integer_path_at_the_op_that_made_it():
    import tensorflow as tf

    from gradtutor.evidence import symbolic

    graph, size = _graph()
    with graph.as_default():
        ids = tf.constant(list(range(size)), name=f"ids{random.randrange(99)}")
        target = tf.reduce_sum(tf.cast(ids, tf.float32) * 2.0)
        [gradient] = tf.gradients(target, ids)
    assert gradient is None
    cause, op = symbolic.why_none([target], ids)
    assert (cause, op) == ("integer-path", ids.op)


def test_a_value_written_into_a_variable_and_read_back_is_state_breaks_path_at_the_write():
    import tensorflow as tf

    from gradtutor.evidence import symbolic

    graph, size = _graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape=[size])
        store = tf.Variable(tf.zeros([size]))
        written = store.assign(x * random.uniform(0.5, 2.0))
        target = tf.reduce_sum(written.read_value() if hasattr(written, "read_value") else written)
        [gradient] = tf.gradients(target, x)
    assert gradient is None
    cause, op = symbolic.why_none([target], x)
    assert cause == "state-breaks-path" and op.type == "AssignVariableOp"


@pytest.mark.parametrize("cut, kind", [("argmax", "no-gradient-op"), ("cast", "integer-path"),
                                       ("stop", "stop-gradient")])
def test_an_op_on_the_path_whose_gradient_does_not_flow_is_named(cut, kind):
    import tensorflow as tf

    from gradtutor.evidence import symbolic

    graph, size = _graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape=[size, size])
        made = {"argmax": lambda: tf.cast(tf.argmax(x, axis=1), tf.float32),
                "cast": lambda: tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32),
                "stop": lambda: tf.stop_gradient(x * 3.0)}[cut]()
        target = tf.reduce_sum(made * 2.0)
        [gradient] = tf.gradients(target, x)
    assert gradient is None
    cause, _ = symbolic.why_none([target], x)
    assert cause == kind


def test_a_target_that_does_not_depend_on_the_source_names_no_cause():
    import tensorflow as tf

    from gradtutor.evidence import symbolic

    graph, size = _graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape=[size])
        other = tf.compat.v1.placeholder(tf.float32, shape=[size])
        target = tf.reduce_sum(other * 2.0)
        [gradient] = tf.gradients(target, x)
    assert gradient is None
    assert symbolic.why_none([target], x) is None
