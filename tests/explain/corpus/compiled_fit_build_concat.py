# source: https://github.com/tensorflow/tensorflow/issues/40632 (outside_build_concat_weights.py, trained with Model.fit)
# expect: cause=outside-tape line=14
# expect-keras: cause=outside-tape line=14
import keras
import numpy as np
import tensorflow as tf


class Joined(keras.layers.Layer):
    def build(self, input_shape):
        self.w1 = self.add_weight(shape=(input_shape[-1], 2), initializer="random_normal")
        self.w2 = self.add_weight(shape=(input_shape[-1], 2), initializer="random_normal")
        # one tensor made from both weights, once: it is computed here, not when the loss is
        self.kernel = tf.concat([self.w1, self.w2], axis=1)

    def call(self, x):
        return tf.matmul(x, self.kernel)


model = keras.Sequential([keras.Input((3,)), Joined(), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
x, y = np.random.rand(16, 3).astype("float32"), np.random.rand(16, 1).astype("float32")
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
