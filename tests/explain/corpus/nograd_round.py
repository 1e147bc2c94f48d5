# source: https://github.com/tensorflow/tensorflow/issues/41528
# expect: cause=no-gradient-op line=7
import tensorflow as tf

w = tf.Variable([0.3, 1.7, 2.2])
with tf.GradientTape() as tape:
    levels = tf.round(w * 4.0)
    loss = tf.reduce_sum(tf.square(levels - 3.0))
print(tape.gradient(loss, w))
