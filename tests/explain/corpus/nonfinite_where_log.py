# source: https://github.com/tensorflow/tensorflow/issues/27684
# expect: cause=non-finite line=9
import numpy as np
import tensorflow as tf

x = tf.convert_to_tensor(np.random.randn(100).astype(np.float32))
alpha = tf.Variable(1, name="asdf", dtype=tf.float32, trainable=True)
with tf.GradientTape(persistent=True) as t:
    s = tf.where(x >= 0, alpha * tf.math.log(x), tf.zeros_like(x))
gradients = t.gradient(s, [alpha])
print(gradients)
