# source: https://markaicode.com/custom-gradients-non-differentiable-losses (leaves_numpy_function.py: a numpy step as a layer under fit)
# expect: cause=leaves-tensorflow line=15
import keras
import numpy as np
import tensorflow as tf


class Clipped(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)

    def call(self, x):
        h = self.dense(x)
        out = tf.numpy_function(lambda t: np.clip(t, -1.0, 1.0), [h], tf.float32)
        return tf.reshape(out, tf.shape(h))


model = keras.Sequential([keras.Input((4,)), Clipped()])
model.compile(optimizer="sgd", loss="mse")
try:
    model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=2, batch_size=8, verbose=0)
except ValueError as error:
    print("fit failed:", str(error)[:60])
