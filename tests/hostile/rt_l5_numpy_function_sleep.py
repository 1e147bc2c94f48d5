# runtime: the NumPy code inside tf.numpy_function blocks forever (TensorFlow's C++ is waiting on it)
import time

import numpy as np
import tensorflow as tf


def numpy_softplus_gradient(x, w):
    def stuck(a):
        time.sleep(10**6)
        return np.logaddexp(0.0, a).astype(np.float32)

    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(w * tf.numpy_function(stuck, [x], tf.float32))
    return tape.gradient(loss, x)
