# source: https://github.com/tensorflow/tensorflow/issues/2540
# expect: cause=saturation line=8
import tensorflow as tf

w = tf.Variable([[3.0], [4.0]])
x = tf.constant([[10.0, 12.0]])
with tf.GradientTape() as tape:
    p = tf.sigmoid(tf.matmul(x, w))
    loss = tf.reduce_sum(p)
print(tape.gradient(loss, w))
