# source: https://markaicode.com/custom-gradients-non-differentiable-losses
# expect: cause=leaves-tensorflow line=16
import numpy as np
import tensorflow as tf


def np_hinge(y_true, y_pred):
    return np.maximum(0.0, 1.0 - y_true * y_pred).mean().astype(np.float32)


w = tf.Variable(tf.random.normal((4, 1)))
x = tf.random.normal((8, 4))
y = tf.sign(tf.random.normal((8, 1)))
with tf.GradientTape() as tape:
    y_pred = tf.matmul(x, w)
    loss = tf.numpy_function(np_hinge, [y, y_pred], tf.float32)
print(tape.gradient(loss, w))
