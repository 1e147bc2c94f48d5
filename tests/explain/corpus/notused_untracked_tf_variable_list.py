# source: https://github.com/tensorflow/tensorflow/issues/38211
# expect: cause=not-used line=13
# A layer keeps its weights as bare tf.Variables: Keras 3 tracks only its own variables, so
# model.trainable_variables is empty and the tape is asked for the gradient of no variable.
import keras
import tensorflow as tf


class FooLayer(keras.layers.Layer):
    def __init__(self, size):
        super().__init__()
        self.size = size
        self.first = tf.Variable(1.0, name="TNS0")
        self.rest = [tf.Variable(float(i), name=f"TNS{i + 1}") for i in range(size)]

    def call(self, x):
        out = x * self.first
        for weight in self.rest:
            out = out * weight
        return out


layer = FooLayer(3)
x = tf.ones((2, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x))
grads = tape.gradient(loss, layer.trainable_variables)
print(len(layer.trainable_variables), grads)
