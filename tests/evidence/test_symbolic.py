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


def test_a_target_that_does_not_depend_on_the_source_is_not_used():
    import tensorflow as tf

    from gradtutor.evidence import symbolic

    graph, size = _graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape=[size])
        other = tf.compat.v1.placeholder(tf.float32, shape=[size])
        target = tf.reduce_sum(other * 2.0)
        [gradient] = tf.gradients(target, x)
    assert gradient is None
    assert symbolic.why_none([target], x) == ("not-used", None)


def test_loop_variables_started_from_one_tensor_are_separate_in_the_body():
    """tensorflow#16333: inside a while_loop body, x and y are two loop variables, whatever they started from; the
    None is not-used, and an outer tensor's None is read through the body's capture of it; the other call's
    gradient, symbolic until a Session runs it, is unobserved, not fine."""
    import tensorflow as tf

    from gradtutor import evidence

    steps = random.randint(2, 6)
    with evidence.recording() as record, tf.Graph().as_default():
        x = tf.constant(random.uniform(1.0, 4.0))
        tf.gradients(x * x, x)

        def body(i, x, y):
            tf.gradients(x, y)
            tf.gradients(tf.round(y * outer), outer)  # the outer graph's tensor, as the body captured it
            return i + 1, x, y

        outer = tf.constant(random.uniform(1.0, 4.0))
        tf.while_loop(lambda i, x, y: i < steps, body, [tf.constant(0), x, x])
    findings, unobserved = evidence.report(record)
    assert sorted((f["cause"], f["call"]) for f in findings) == [("no-gradient-op", "tf.gradients"),
                                                                 ("not-used", "tf.gradients")], findings
    assert [s["why"] for s in unobserved] == ["graph"], unobserved


@pytest.mark.parametrize("kind", ["tf", "keras"])
def test_in_a_tf_function_a_variable_it_never_read_is_not_used_and_one_it_read_is_followed(kind):
    """A variable's handle is an eager tensor; a function being traced (nested ones too) reads it through the
    placeholder it captured it as, so a variable no function captured is not used, and the path of one read
    through a nested function still leads to the op that cut it. A Keras variable's dtype is a string."""
    import keras
    import tensorflow as tf

    from gradtutor.evidence import symbolic

    size = random.randint(2, 5)
    make = tf.Variable if kind == "tf" else keras.Variable
    read, unread = make(tf.random.normal([size, size])), make(tf.random.normal([size]))
    seen = {}

    @tf.function
    def inner(x):
        return tf.round(tf.linalg.matvec(read, x))

    @tf.function
    def step(x):
        target = tf.reduce_sum(inner(x))
        gradients = tf.gradients(target, [read, unread])
        seen["read"], seen["unread"] = (symbolic.why_none([target], v) for v in (read, unread))
        return gradients

    assert step(tf.ones([size])) == [None, None]
    assert seen["unread"] == ("not-used", None)
    assert seen["read"][0] == "no-gradient-op" and seen["read"][1].type == "Round", seen["read"][1]
