# source: https://thinbug.com/q/44957098 (nonfinite_sqrt_zero.py's kind: tf.gradients of a column-wise tf.norm in a compiled function, whose masked columns are all zero)
# expect: cause=non-finite line=17
import numpy as np
import tensorflow as tf

np.random.seed(0)
inputs = np.random.normal(0, 0.5, (16, 6)).astype("float32")
weights = tf.Variable(tf.zeros([6, 4]))
mask = np.zeros((4, 4), "float32")
mask[1, 1] = 1.0  # only the second output is trained
targets = (inputs @ np.random.randn(6, 4).astype("float32")) * mask.diagonal()


@tf.function
def distance_and_gradient(x, y, m):
    prediction = tf.matmul(tf.matmul(x, weights), m)
    distance = tf.norm(y - prediction, axis=0)
    return distance, tf.gradients(distance, [prediction])[0]


distance, gradient = distance_and_gradient(inputs, targets, mask)
print("NaN in the gradient:", bool(np.isnan(gradient.numpy()).any()))
