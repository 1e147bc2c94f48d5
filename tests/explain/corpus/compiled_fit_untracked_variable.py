# source: https://github.com/tensorflow/tensorflow/issues/38211 (keras_raw_variable_untracked.py under fit)
# expect: cause=not-used line=11
import keras
import numpy as np
import tensorflow as tf


class Scale(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.factor = tf.Variable(1.0, name="factor")  # Keras 3 does not track a bare tf.Variable

    def call(self, x):
        return x * self.factor


model = keras.Sequential([keras.Input((3,)), Scale()])
model.compile(optimizer="sgd", loss="mse")
x = np.random.rand(16, 3).astype("float32")
model.fit(x, 2.0 * x, epochs=2, batch_size=8, verbose=0)
print(model.layers[0].factor.numpy())
