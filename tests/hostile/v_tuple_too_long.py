# values: the right pair of gradients plus an extra element
import tensorflow as tf


def grads_with_frozen_weight(w, b, x):
    with tf.GradientTape() as tape:
        tape.watch(w)
        loss = tf.reduce_sum((x @ w + b) ** 2)
    dw, db = tape.gradient(loss, [w, b])
    return dw, db, loss
