# source: https://github.com/cleverhans-lab/cleverhans/issues/432 (leaves_numpy_function.py's kind: a Python function wrapped by tf.py_function inside a compiled training step)
# expect: cause=leaves-tensorflow line=11
import numpy as np
import tensorflow as tf

w = tf.Variable(np.ones((4, 1), np.float32))
x = tf.constant(np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4))


def sinh_filter(values):
    return np.sinh(values.numpy())  # numpy: TensorFlow cannot differentiate it


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        filtered = tf.ensure_shape(tf.py_function(sinh_filter, [tf.matmul(x, w)], tf.float32), (8, 1))
        loss = tf.reduce_mean(tf.square(filtered))
    return tape.gradient(loss, w)


print(train_step())
