# source: https://github.com/keras-team/keras/issues/5107 (rounding a hidden layer's output in a Lambda)
# expect: cause=no-gradient-op line=10
import numpy as np
import tensorflow as tf
import keras

keras.utils.set_random_seed(0)
inputs = keras.Input((4,))
hidden = keras.layers.Dense(8, activation="sigmoid", name="hidden")(inputs)
binary = keras.layers.Lambda(lambda t: tf.round(t))(hidden)
outputs = keras.layers.Dense(1)(binary)
model = keras.Model(inputs, outputs)
model.compile(optimizer="sgd", loss="mse")
x = np.random.rand(32, 4).astype("float32")
y = x.sum(axis=1, keepdims=True)
before = model.get_layer("hidden").get_weights()[0].copy()
model.fit(x, y, epochs=2, verbose=0)
print("hidden kernel change", np.abs(model.get_layer("hidden").get_weights()[0] - before).max())
