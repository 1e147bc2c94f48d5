# source: https://github.com/tensorflow/tensorflow/issues/20091
# expect: cause=non-finite line=8
import tensorflow as tf

W1 = tf.Variable([2.0])
W2 = tf.Variable([0.0])
with tf.GradientTape() as tape:
    y = tf.where(W2 > 0.0, W1 / W2, W1)
print(tape.gradient(y, [W1, W2]))
