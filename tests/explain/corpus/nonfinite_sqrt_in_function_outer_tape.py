# source: https://github.com/tensorflow/tensorflow/issues/42602 ("when I refactor the three lines inside a function, the gradient becomes NaN": sqrt(square(v)) in a tf.function called under an eager tape, at v = 0)
# expect: cause=non-finite line=10
import numpy as np
import tensorflow as tf


@tf.function
def magnitude(v):
    squared = tf.square(v)
    root = tf.sqrt(squared)
    return tf.reduce_sum(root, axis=-1)


x = tf.Variable(np.array([[1.5, 0.0, -2.0]], np.float32))
with tf.GradientTape() as tape:
    loss = tf.nn.l2_loss(magnitude(x))
print(tape.gradient(loss, x).numpy())
