# source: https://theneuralbase.com/tensorflow/learn/intermediate/mixed-precision-with-custom-loops/ (the fixed program: the loss computed in float32, the float16 weights updated from it)
# expect: clean
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(5)
x = tf.constant(rng.normal(size=(16, 8)), tf.float16)
y = tf.constant(rng.normal(size=(16, 1)), tf.float32)
w = tf.Variable(tf.zeros([8, 1], tf.float16))
scale = 1024.0

for step in range(3):
    with tf.GradientTape() as tape:
        prediction = tf.cast(tf.matmul(x, w), tf.float32)
        loss = tf.reduce_mean(tf.square(prediction - y)) * 1e-3
        scaled = loss * scale  # loss scaling: the float16 gradient stays above its smallest step
    grad = tf.cast(tape.gradient(scaled, w), tf.float32) / scale
    w.assign_sub(tf.cast(0.1 * grad, tf.float16))
print(float(tf.reduce_max(tf.abs(w))))
