# source: https://github.com/tensorflow/tensorflow/issues/4914
# expect: cause=non-finite line=10
# how: zero
import tensorflow as tf

x = tf.Variable([1.0, 2.0])
c = tf.constant([0.0, 1.0])
with tf.GradientTape() as tape:
    tape.watch(c)
    y = tf.reduce_sum(tf.sqrt(c * x))
print(tape.gradient(y, c))
