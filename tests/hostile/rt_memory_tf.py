# runtime: a TensorFlow tensor far above the memory cap (16 GiB of float32)
import tensorflow as tf


def logit_gradient(model, inp, k):
    huge = tf.ones((1 << 16, 1 << 16), dtype=tf.float32)
    return tf.reduce_sum(huge) * inp
