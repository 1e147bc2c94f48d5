# source: https://github.com/tensorflow/tensorflow/issues/32729 (a noisy dense layer: "noisy_dense/bias has None for gradient")
# expect: cause=outside-tape line=15
import keras
import tensorflow as tf


class NoisyDense(keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.units = units

    def build(self, input_shape):
        self.mu_b = self.add_weight(shape=(self.units,), initializer="zeros", name="mu_bias")
        self.sigma_b = self.add_weight(shape=(self.units,), initializer="ones", name="sigma_bias")
        self.bias = self.mu_b + self.sigma_b * tf.random.normal((self.units,))  # the noise drawn once, here
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")

    def call(self, x):
        return tf.matmul(x, self.kernel) + self.bias


layer = NoisyDense(3)
x = tf.random.normal((4, 5))
layer(x)
with tf.GradientTape() as tape:
    q = tf.reduce_sum(layer(x))
grads = tape.gradient(q, layer.trainable_variables)
print({v.name: g is None for v, g in zip(layer.trainable_variables, grads)})
