# source: https://github.com/tensorflow/tensorflow/issues/38622
# expect: cause=state-breaks-path line=8
import tensorflow as tf

x = tf.Variable(2.0)
buffer = tf.Variable(0.0)
with tf.GradientTape() as tape:
    buffer.assign(x * 3.0)
    y = buffer * buffer
print(tape.gradient(y, x))
