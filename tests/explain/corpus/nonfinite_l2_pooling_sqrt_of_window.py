# source: https://github.com/dingkeyan93/DISTS/issues/1 (an L2 pooling layer, sqrt of a Hanning-window convolution of x ** 2: a black image border makes the window 0 and the first step's gradient NaN)
# expect: cause=non-finite line=18
import keras
import numpy as np
import tensorflow as tf


class L2Pooling(keras.layers.Layer):
    def build(self, input_shape):
        channels = input_shape[-1]
        a = np.hanning(5)[1:-1]
        window = a[:, None] * a[None, :]
        window = window / window.sum()
        self.window = tf.constant(np.tile(window[:, :, None, None], (1, 1, channels, 1)), tf.float32)

    def call(self, x):
        energy = tf.nn.depthwise_conv2d(x ** 2, self.window, strides=[1, 2, 2, 1], padding="SAME")
        return tf.sqrt(energy)


keras.utils.set_random_seed(7)
inputs = keras.Input((8, 8, 3))
h = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
h = keras.layers.GlobalAveragePooling2D()(L2Pooling()(h))
model = keras.Model(inputs, keras.layers.Dense(1)(h))
model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
rng = np.random.default_rng(7)
x = rng.random((4, 8, 8, 3)).astype("float32")
x[:, :, :3, :] = 0.0  # a black border
print("loss:", model.train_on_batch(x, rng.random((4, 1)).astype("float32")))
print("NaN in the first kernel:", bool(np.isnan(model.layers[1].kernel.numpy()).any()))
