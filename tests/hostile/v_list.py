# values: the right gradient inside a list
import tensorflow as tf


def first_class_gradient(model, inp):
    with tf.GradientTape() as tape:
        first = model(inp, training=False)[:, 0]
    return [tape.gradient(first, inp)]
