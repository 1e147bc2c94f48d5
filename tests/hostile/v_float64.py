# values: the right gradients in float64
import tensorflow as tf


def grads_with_frozen_weight(w, b, x):
    with tf.GradientTape() as tape:
        tape.watch(w)
        loss = tf.reduce_sum((x @ w + b) ** 2)
    dw, db = tape.gradient(loss, [w, b])
    return tf.cast(dw, tf.float64), tf.cast(db, tf.float64)
