# source: https://github.com/tensorflow/tensorflow/issues/41528
# expect: cause=integer-path line=8
import tensorflow as tf

table = tf.random.normal((10, 3))
position = tf.Variable(3.7)
with tf.GradientTape() as tape:
    index = tf.cast(position, tf.int32)
    row = tf.gather(table, index)
    loss = tf.reduce_sum(row)
print(tape.gradient(loss, position))
