# files: the right code under another name
import tensorflow as tf


def grad_of_cubes(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 3)
    return tape.gradient(y, x)
