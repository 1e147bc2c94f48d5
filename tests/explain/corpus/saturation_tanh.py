# source: https://github.com/tensorflow/tensorflow/issues/54417
# expect: cause=saturation line=7
import tensorflow as tf

h = tf.Variable(tf.random.uniform((2, 3), 5.0, 6.0))
with tf.GradientTape() as tape:
    state = tf.tanh(20.0 * h)
    out = tf.reduce_sum(state)
print(tape.gradient(out, h))
