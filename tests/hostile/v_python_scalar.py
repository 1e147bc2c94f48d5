# values: a Python float instead of a tensor
import tensorflow as tf


def grad_of_cube(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 3)
    return float(tf.reduce_sum(tape.gradient(y, x)))
