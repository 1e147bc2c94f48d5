# source: https://github.com/tensorflow/tensorflow/issues/35533
# expect: cause=dead-relu line=8
import tensorflow as tf

w = tf.Variable(tf.random.uniform((3, 4)))
x = -tf.random.uniform((5, 3), 1.0, 2.0)
with tf.GradientTape() as tape:
    hidden = tf.nn.relu(tf.matmul(x, w))
    loss = tf.reduce_sum(hidden)
print(tape.gradient(loss, w))
