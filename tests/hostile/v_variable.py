# values: the right gradient wrapped in a tf.Variable
import tensorflow as tf


def grad_of_cube(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x ** 3)
    return tf.Variable(tape.gradient(y, x))
