# values: the right shape, but a comparison's booleans instead of a gradient
import tensorflow as tf


def ste_gradient(w, x, y, step):
    return tf.convert_to_tensor(w) > 0.0
