# source: https://github.com/keras-team/tf-keras/issues/197 (a layer hands its kernel to a tf.custom_gradient function: the function then reads a variable, and TensorFlow asks its gradient function for variables=)
# expect: cause=custom-gradient-signature line=14
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(12)


@tf.custom_gradient
def straight_matmul(x, w):
    y = tf.matmul(x, w)

    def grad(upstream):
        return tf.matmul(upstream, w, transpose_b=True), tf.matmul(x, upstream, transpose_a=True)

    return y, grad


class CustomDense(keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 3), initializer="glorot_uniform")

    def call(self, x):
        return straight_matmul(x, self.kernel)


layer = CustomDense()
x = tf.constant(np.random.default_rng(12).normal(size=(6, 4)), tf.float32)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(layer(x)))
print(tape.gradient(loss, layer.trainable_variables))
