# source: https://www.tutorialexample.com/understand-the-value-of-tf-gradients-on-tf-nn-softmax-is-0-tensorflow-tutorial/
# expect: cause=softmax-sum line=8
import numpy as np
import tensorflow as tf

z = tf.Variable(np.array([[1, 2], [3, 2]]), dtype=tf.float32)
with tf.GradientTape() as tape:
    y = tf.nn.softmax(z, axis=1)
print(tape.gradient(y, z))
