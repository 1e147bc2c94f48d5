# values: the right gradient as tf.IndexedSlices
import tensorflow as tf


def grad_of_keras_variable(v, x):
    with tf.GradientTape() as tape:
        tape.watch(v.value)
        y = tf.reduce_sum(tf.tanh(x @ v))
    dense = tape.gradient(y, v.value)
    rows = tf.range(tf.shape(dense)[0])
    return tf.IndexedSlices(dense, rows, dense_shape=tf.shape(dense, out_type=tf.int64))
