# runtime: the hang is in a class body, which runs when the cell is loaded, before any call
import tensorflow as tf


class Spin:
    while True:
        pass


def class_gradient(model, inp, k):
    with tf.GradientTape() as tape:
        p_k = model(inp, training=False)[:, k]
    return tape.gradient(p_k, inp)
