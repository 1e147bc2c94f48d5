# values: a generator of per-step norms instead of a tensor
import tensorflow as tf


def jacobian_norms(rnn, x, h0):
    return (tf.constant(1.0) for _ in range(x.shape[1]))
