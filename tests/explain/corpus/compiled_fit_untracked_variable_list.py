# source: https://github.com/keras-team/keras/issues/16797 (notused_untracked_variable_list.py, trained with Model.fit)
# expect: cause=not-used line=14
import keras
import numpy as np
import tensorflow as tf


class Scaled(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(3)
        self.scales = []
        for i in range(2):
            self.scales.append(tf.Variable(1.0, name=f"scale{i}"))  # a bare tf.Variable: Keras 3 does not track it

    def call(self, x):
        return self.dense(x) * self.scales[0] + self.scales[1]


model = keras.Sequential([keras.Input((4,)), Scaled()])
model.compile(optimizer="sgd", loss="mse")
x, y = np.random.rand(16, 4).astype("float32"), np.random.rand(16, 3).astype("float32")
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
