# source: https://codemia.io/knowledge-hub/path/how_tensorarray_and_while_loop_work_together_in_tensorflow ("write returns a new TensorArray handle … you must capture the result": the fixed program, the array carried through tf.while_loop)
# expect: clean
import keras
import tensorflow as tf

keras.utils.set_random_seed(1)
recurrent = keras.layers.Dense(3, activation="tanh")
sequence = tf.random.normal((4, 2, 3))


def body(t, h, outputs):
    h = recurrent(sequence[t] + h)
    return t + 1, h, outputs.write(t, h)  # the written array is the one the loop carries on


@tf.function
def sequence_loss():
    with tf.GradientTape() as tape:
        _, _, outputs = tf.while_loop(lambda t, h, outputs: t < 4, body,
                                      (tf.constant(0), tf.zeros((2, 3)), tf.TensorArray(tf.float32, size=4)))
        loss = tf.reduce_sum(tf.square(outputs.stack()))
    return tape.gradient(loss, recurrent.trainable_variables)


print([float(tf.reduce_max(tf.abs(g))) for g in sequence_loss()])
