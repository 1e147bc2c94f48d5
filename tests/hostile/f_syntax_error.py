# files: the exercise function does not parse
import tensorflow as tf


def input_gradient(model, x, y)
    with tf.GradientTape() as tape:
        tape.watch(x)
    return tape.gradient(loss, x)
