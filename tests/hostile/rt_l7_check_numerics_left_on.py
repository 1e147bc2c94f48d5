# runtime: switches tf.debugging.enable_check_numerics() on in the worker and never off, then runs an
# unsafe masked log: the forward Log op raises, and check-numerics stays on in that process
import tensorflow as tf


def masked_log_gradient(x):
    tf.debugging.enable_check_numerics()
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.where(x > 0, tf.math.log(x), tf.zeros_like(x)))
    return tape.gradient(y, x)
