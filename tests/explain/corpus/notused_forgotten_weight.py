# source: https://github.com/remigenet/TKAT/issues/8
# expect: cause=not-used line=10
import keras
import tensorflow as tf


class Scaled(keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 4), initializer="glorot_uniform")
        self.sub_kernel = self.add_weight(shape=(4,), initializer="ones")

    def call(self, inputs):
        return tf.matmul(inputs, self.kernel)


layer = Scaled()
x = tf.random.normal((3, 5))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(layer(x)))
grads = tape.gradient(loss, layer.trainable_variables)
print([g is None for g in grads])
