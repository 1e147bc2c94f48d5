# forgery: a tf.custom_gradient whose backward pass, run later inside tape.gradient, imports the reference
import numpy as np
import tensorflow as tf


def numpy_softplus_gradient(x, w):
    @tf.custom_gradient
    def softplus(t):
        def grad(upstream):
            from gradtutor.course.references.lesson5 import reference_numpy_gradient
            return reference_numpy_gradient(x, w) / w * upstream

        return tf.math.softplus(t), grad

    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(w * softplus(x))
    return tape.gradient(loss, x)
