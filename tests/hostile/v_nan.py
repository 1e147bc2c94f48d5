# values: the right gradient, poisoned with NaN
import tensorflow as tf


def input_gradient(model, x, y):
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_mean(tf.square(model(x, training=False) - y))
    return tape.gradient(loss, x) * float("nan")
