# source: https://github.com/tensorflow/tensorflow/issues/50111 (a Huber loss written in NumPy and given pred.numpy(): each of its steps leaves TensorFlow)
# expect: cause=leaves-tensorflow line=20
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(3)
w = tf.Variable(rng.normal(size=(5, 1)).astype("float32"))


def huber(pred, target):
    err = np.abs(pred - target)
    quadratic = np.where(err < 1.0, 0.5 * err ** 2, err - 0.5)
    return np.mean(quadratic)


x = rng.random((64, 5)).astype("float32")
y = rng.random((64, 1)).astype("float32")
with tf.GradientTape() as tape:
    pred = tf.matmul(x, w)
    loss = tf.convert_to_tensor(huber(pred.numpy(), y), dtype=tf.float32)
grads = tape.gradient(loss, [w])
print("gradient:", grads)
