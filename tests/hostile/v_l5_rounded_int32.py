# values: the right shape, but the rounded logits as int32 — an integer is no gradient
import tensorflow as tf


def soft_argmax_gradient(logits, temperature):
    return tf.cast(tf.round(logits / temperature), tf.int32)
