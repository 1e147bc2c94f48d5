# values: the right numbers as a nested Python list
import tensorflow as tf


def grad_from_numpy(x):
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sin(x) * x)
    return tape.gradient(y, x).numpy().tolist()
