# source: https://github.com/tensorflow/tensorflow/issues/1511 (integer_cast_quantize.py as a subclassed model under fit)
# expect: cause=integer-path line=16
import keras
import numpy as np
import tensorflow as tf


class Quantized(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)
        self.head = keras.layers.Dense(1)

    def call(self, x):
        h = self.dense(x)
        levels = tf.cast(h * 255.0, tf.int32)
        return self.head(tf.cast(levels, tf.float32) / 255.0)


model = Quantized()
model.compile(optimizer="sgd", loss="mse")
try:
    model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=2, batch_size=8, verbose=0)
except ValueError as error:
    print("fit failed:", str(error)[:60])
