# source: https://github.com/e3nn/e3nn/issues/112 (atan2 evaluated at (0, 0); tensorflow/tensorflow#6095 names the same NaN)
# expect: cause=non-finite line=8
# how: zero
import tensorflow as tf

p = tf.Variable([[0.0, 0.0], [1.0, 1.0], [-2.0, 0.5]])
with tf.GradientTape() as tape:
    angle = tf.math.atan2(p[:, 1], p[:, 0])
    loss = tf.reduce_sum(angle)
print(tape.gradient(loss, p))
