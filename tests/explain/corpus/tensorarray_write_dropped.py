# source: https://github.com/tensorflow/tensorflow/issues/44932 (`y.write(i, …)` without keeping what write returns; in a @tf.function the writes are lost and the stacked result no longer depends on the weights)
# expect: cause=not-used line=18
import keras
import tensorflow as tf

keras.utils.set_random_seed(1)
cell = keras.layers.Dense(3, activation="tanh")
inputs = tf.random.normal((4, 2, 3))


@tf.function
def unrolled_loss(inputs):
    with tf.GradientTape() as tape:
        states = tf.TensorArray(tf.float32, size=4)
        h = tf.zeros((2, 3))
        for t in tf.range(4):
            h = cell(inputs[t] + h)
            states.write(t, h)  # the new TensorArray that write returns is dropped
        loss = tf.reduce_sum(tf.square(states.stack()))
    return tape.gradient(loss, cell.trainable_variables)


print([g is None for g in unrolled_loss(inputs)])
