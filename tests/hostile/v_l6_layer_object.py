# values: returns the layer's weights (keras.Variables) instead of their gradients
import keras
import tensorflow as tf


class Affine(keras.layers.Layer):
    def __init__(self, kernel0, bias0, **kwargs):
        super().__init__(**kwargs)
        self.kernel0, self.bias0 = kernel0, bias0

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=self.kernel0.shape, initializer=keras.initializers.Constant(self.kernel0))
        self.bias = self.add_weight(shape=self.bias0.shape, initializer=keras.initializers.Constant(self.bias0))

    def call(self, x):
        return x @ self.kernel + self.bias


def layer_gradients(kernel0, bias0, x):
    layer = Affine(kernel0, bias0)
    layer(x)
    return tuple(layer.trainable_variables)
