# source: https://github.com/tensorflow/tensorflow/issues/50661
# expect: cause=unwatched line=9
import numpy as np
import tensorflow as tf

x_np = np.random.randint(10, size=(1, 4, 4, 1)).astype(np.float32)
w_np = np.random.randint(10, size=(3, 3, 1, 1)).astype(np.float32)
x = tf.constant(x_np)
w = tf.constant(w_np)
with tf.GradientTape() as g:
    y = tf.nn.conv2d(x, w, strides=(1, 1, 1, 1), padding="VALID")
    loss = tf.reduce_sum(y)
print(g.gradient(loss, w))
