# source: https://github.com/tensorflow/tensorflow/issues/5562
# expect: cause=non-finite line=8
import tensorflow as tf

tensor1, tensor2 = tf.Variable(1.0), tf.constant(1.0)  # a global norm of zero differences
with tf.GradientTape() as tape:
    diff = tf.stack([tensor1 - tensor2, tensor1 - tensor2])
    loss = tf.sqrt(tf.reduce_sum(tf.square(diff)))
print(tape.gradient(loss, tensor1))
