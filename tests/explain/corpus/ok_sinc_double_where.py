# source: https://github.com/tensorflow/tensorflow/pull/127742 (the fixed sinc: the 0/0 branch gets a safe denominator, so its masked gradient is 0, not NaN)
# expect: clean
import numpy as np
import tensorflow as tf

t = tf.constant(np.arange(-8, 9, dtype="float32"))
f_cut = tf.Variable(0.25)
with tf.GradientTape() as tape:
    x = 2.0 * np.pi * f_cut * t
    is_zero = tf.equal(x, 0.0)
    safe_x = tf.where(is_zero, tf.ones_like(x), x)
    sinc = tf.where(is_zero, tf.ones_like(x), tf.sin(safe_x) / safe_x)
    loss = tf.reduce_sum(tf.square(sinc))
print(tape.gradient(loss, f_cut))
