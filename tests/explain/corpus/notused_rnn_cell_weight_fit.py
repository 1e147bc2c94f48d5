# source: https://github.com/tensorflow/probability/issues/927 (a GRU cell rewritten by hand makes an `interim` weight in build that its call never reads: fit warns that it has no gradient, and it never changes)
# expect: cause=not-used line=23
import numpy as np
import keras
from keras import ops


class MyGRU(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        dim = input_shape[-1]
        self.w_r = self.add_weight(shape=(dim + self.units, self.units), initializer="uniform", name="reset_gate")
        self.b_r = self.add_weight(shape=(self.units,), initializer="zeros", name="reset_gate_bias")
        self.w_z = self.add_weight(shape=(dim + self.units, self.units), initializer="uniform", name="update_gate")
        self.b_z = self.add_weight(shape=(self.units,), initializer="zeros", name="update_gate_bias")
        self.w_h = self.add_weight(shape=(dim + self.units, self.units), initializer="uniform", name="candidate")
        self.b_h = self.add_weight(shape=(self.units,), initializer="zeros", name="candidate_bias")
        # meant for the candidate's reset-gated state, but call below never reads it
        self.interim = self.add_weight(shape=(self.units, self.units), initializer="uniform", name="interim")

    def call(self, inputs, states):
        h = states[0]
        joined = ops.concatenate([inputs, h], axis=-1)
        r = ops.sigmoid(ops.matmul(joined, self.w_r) + self.b_r)
        z = ops.sigmoid(ops.matmul(joined, self.w_z) + self.b_z)
        candidate = ops.tanh(ops.matmul(ops.concatenate([inputs, r * h], axis=-1), self.w_h) + self.b_h)
        h = z * h + (1 - z) * candidate
        return h, [h]


rng = np.random.default_rng(5)
x = rng.normal(size=(64, 7, 3)).astype("float32")
y = x.sum(axis=(1, 2))[:, None].astype("float32")
model = keras.Sequential([keras.Input((7, 3)), keras.layers.RNN(MyGRU(8)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=2, batch_size=16, verbose=0)
