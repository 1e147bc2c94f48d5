# source: https://github.com/tensorflow/tensorflow/issues/34503
# expect: clean
import tensorflow as tf

w = tf.Variable(tf.random.normal((4, 4)))
x = tf.random.normal((2, 4))
with tf.GradientTape() as tape:
    binary_w = w + tf.stop_gradient(tf.sign(w) - w)
    loss = tf.reduce_sum(tf.matmul(x, binary_w))
print(tape.gradient(loss, w))
