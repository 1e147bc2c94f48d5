# source: https://github.com/tensorflow/tensorflow/issues/37501 ("Gradients do not exist for variables" while training batch by batch; here train_on_batch, one branch rounded)
# expect: cause=no-gradient-op line=11
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(1)
inputs = keras.Input((6,))
direct = keras.layers.Dense(1, name="direct")(inputs)
coarse = keras.layers.Dense(1, name="coarse")(inputs)
rounded = keras.layers.Lambda(lambda t: tf.round(t))(coarse)  # round has no gradient: "coarse" never trains
model = keras.Model(inputs, keras.layers.Add()([direct, rounded]))
model.compile(optimizer="sgd", loss="mse")
x = np.random.default_rng(1).normal(size=(16, 6)).astype("float32")
y = np.zeros((16, 1), "float32")
for batch in range(3):
    print(model.train_on_batch(x, y))
