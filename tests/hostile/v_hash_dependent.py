# values: a wrong answer whose numbers depend on Python's string hashing (PYTHONHASHSEED)
import tensorflow as tf


def grad_from_numpy(x):
    return tf.fill(x.shape, float(hash("gradtutor") % 1000) + 1000.0)
