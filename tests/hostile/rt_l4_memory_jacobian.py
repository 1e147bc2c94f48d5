# runtime: a Jacobian materialised a million times over (32 GiB), far above the memory cap
import tensorflow as tf


def jacobian_norms(rnn, x, h0):
    batch, units = h0.shape
    huge = tf.zeros((1 << 20, batch * units, units, 2), dtype=tf.float32)
    return tf.reduce_mean(huge, axis=[0, 1, 2])
