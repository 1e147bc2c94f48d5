# source: https://github.com/tensorflow/tensorflow/issues/39858
# expect: cause=leaves-tensorflow line=10
import numpy as np
import tensorflow as tf


def compute_kld(p_logit, q_logit):
    p = tf.nn.softmax(p_logit)
    q = tf.nn.softmax(q_logit)
    return np.sum(p * (np.log(p + 1e-16) - np.log(q + 1e-16)), axis=1)


p_logit = tf.random.normal((2, 10))
noise = tf.Variable(tf.random.normal((2, 10)) * 0.01)
with tf.GradientTape() as tape:
    kl = tf.reduce_sum(compute_kld(p_logit, p_logit + noise))
print(tape.gradient(kl, noise))
