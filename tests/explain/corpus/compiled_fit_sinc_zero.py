# source: https://github.com/tensorflow/tensorflow/issues/127226 (nonfinite_sinc_zero.py compiled: keras.ops.sinc at an argument of exactly zero inside a layer trained by fit; the value is 1, the derivative NaN, and the learned band turns NaN)
# expect: cause=non-finite line=18
import keras
import numpy as np

keras.utils.set_random_seed(8)


class SincFilter(keras.layers.Layer):
    """A band-pass kernel sinc(band * t) over taps t = -2..2, its band learned."""

    def build(self, input_shape):
        self.band = self.add_weight(shape=(), initializer=keras.initializers.Constant(0.3), name="band")

    def call(self, x):
        taps = keras.ops.arange(-2.0, 3.0)  # the centre tap is t = 0
        # sinc's where() still differentiates its 0/0 branch at band * 0 = 0
        kernel = keras.ops.sinc(self.band * taps)
        return keras.ops.matmul(x, keras.ops.reshape(kernel, (5, 1)))


model = keras.Sequential([keras.Input((5,)), SincFilter()])
model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
rng = np.random.default_rng(8)
signal = rng.normal(size=(32, 5)).astype("float32")
model.fit(signal, signal[:, 2:3], batch_size=16, epochs=1, verbose=0)
print(model.layers[0].band.numpy())
