# source: https://github.com/tensorflow/tensorflow/pull/59657 (a mask's large negative number "when the data type is float16 ... causes overflows": -1e9 becomes -inf in float16, and 0 × -inf is NaN)
# expect: cause=non-finite line=23
import keras
import numpy as np
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_float16")
project = keras.layers.Dense(6)
project.build((None, 4, 6))
keras.mixed_precision.set_global_policy("float32")  # the layer keeps its float16 compute dtype
tokens = tf.constant(np.random.default_rng(9).normal(size=(2, 4, 6)), tf.float32)
padding = tf.constant([[1, 1, 1, 0], [1, 1, 0, 0]], tf.float32)
target = tf.constant(np.random.default_rng(3).normal(size=(2, 4, 6)), tf.float32)
optimizer = keras.optimizers.SGD(0.01)


@tf.function
def step(x):
    with tf.GradientTape() as tape:
        h = project(x)
        scores = tf.matmul(h, h, transpose_b=True)
        blocked = 1.0 - tf.cast(padding[:, None, :], scores.dtype)
        scores = scores + blocked * -1e9
        attended = tf.matmul(tf.nn.softmax(scores, axis=-1), h)
        loss = tf.reduce_mean(tf.square(tf.cast(attended, tf.float32) - target))
    grads = tape.gradient(loss, project.trainable_variables)
    optimizer.apply_gradients(zip(grads, project.trainable_variables))
    return loss


print(float(step(tokens)))
