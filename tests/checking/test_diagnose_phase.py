"""Through the real checker: is a shape error named by where it was raised, a gradient computation or not?

A forward pass that raises after a gradient call is the forward computation's (the op that raised
named, the learner's line quoted), never a gradient's shape; one raised inside tape.gradient (a
gradient function of the learner's own) keeps the gradient's shape advice.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf

FORWARD_AFTER_A_GRADIENT = '''
def grad_of_cube(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 3)
    grad = tape.gradient(y, x)
    with tf.GradientTape() as again:
        again.watch(x)
        pairs = tf.reshape(x, (-1, x.shape[0] + 1))
    return grad
'''

INSIDE_THE_GRADIENT = '''
@tf.custom_gradient
def cube(v):
    return v ** 3, lambda upstream: tf.reshape(upstream * 3 * v ** 2, (-1, v.shape[0] + 1))

def grad_of_cube(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(cube(x))
    return tape.gradient(y, x)
'''


def test_is_a_forward_error_after_a_gradient_call_the_forward_computations(grade):
    result = grade("lesson1", "watch_constant", FORWARD_AFTER_A_GRADIENT)
    assert result.status == "error" and result.cause.value == "forward-shape", result.message
    assert "pairs = tf.reshape(x, (-1, x.shape[0] + 1))" in result.message, result.message
    assert "the forward computation raised" in result.message and "the Reshape op" in result.message, result.message
    assert "a gradient has the shape" not in result.message, result.message
    inside = grade("lesson1", "watch_constant", INSIDE_THE_GRADIENT)
    assert inside.status == "error" and inside.cause.value == "shape", inside.message
    assert "tf.reshape(upstream * 3 * v ** 2" in inside.message and "forward" not in inside.message, inside.message
