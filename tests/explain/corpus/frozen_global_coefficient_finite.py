# source: https://www.tensorflow.org/guide/function#depending_on_python_global_and_free_variables (the guide's warning: a function that reads a Python global keeps the value it was traced with, "even though the global has changed")
# expect: cause=frozen-python-state line=16
import numpy as np
import tensorflow as tf

w = tf.Variable(tf.random.normal([5, 1], seed=3))
x = tf.constant(np.random.default_rng(8).normal(size=(40, 5)), tf.float32)
y = tf.reduce_sum(x, axis=1, keepdims=True)
smoothness = 1e-3  # raised once the fit is close


@tf.function
def step():
    with tf.GradientTape() as tape:
        fit = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        loss = fit + smoothness * tf.reduce_sum(tf.square(w[1:] - w[:-1]))
    w.assign_sub(0.05 * tape.gradient(loss, w))
    return loss


for epoch in range(6):
    loss = step()
    if epoch == 2:
        smoothness = 0.5
print(float(loss))
