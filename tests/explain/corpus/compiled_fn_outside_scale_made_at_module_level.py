# source: https://github.com/tensorflow/probability/issues/1165 (outside_scale_made_at_module_level.py with its tape in a @tf.function: the scale, tf.exp of a trainable log-scale, made once at module level)
# expect: cause=outside-tape line=10
import numpy as np
import tensorflow as tf

loc_a = tf.Variable([38.6])
log_scale_a = tf.Variable([2.3])
loc_b = tf.Variable([6.6])
log_scale_b = tf.Variable([3.4])
scale_a = tf.exp(log_scale_a)
scale_b = tf.exp(log_scale_b)


def normal_log_prob(x, loc, scale):
    z = (x - loc) / scale
    return -0.5 * z * z - tf.math.log(scale) - 0.5 * np.log(2.0 * np.pi)


@tf.function
def log_likelihood_gradients(a, b):
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(normal_log_prob(a, loc_a, scale_a) + normal_log_prob(b, loc_b, scale_b))
    return tape.gradient(total, [loc_a, loc_b, log_scale_a, log_scale_b])


for name, g in zip(["loc_a", "loc_b", "log_scale_a", "log_scale_b"], log_likelihood_gradients(3.0, 5.0)):
    print(name, None if g is None else g.numpy())
