# source: https://github.com/tensorflow/tensorflow/issues/30768 (a tf.Variable thrown away and made again; here each step)
# expect: cause=variable-replaced line=12
import numpy as np
import tensorflow as tf

x = tf.constant(np.random.rand(64, 3).astype("float32"))
y = x @ tf.constant([[1.0], [-2.0], [0.5]])
w_init = tf.zeros((3, 1))
lr = 0.1
for step in range(20):
    # the variable is made again from w_init on every step: each step starts from zero
    w = tf.Variable(w_init)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    grad = tape.gradient(loss, w)
    w.assign_sub(lr * grad)
print(float(loss))
