# source: https://ai.stackexchange.com/questions/16557 (a network with four hidden layers of 500 sigmoids does not learn: targets far from unit scale push the upper sigmoids to 0 and 1, and the layers under them get almost no gradient)
# expect: cause=saturation line=18
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

np.random.seed(0)
tf.random.set_seed(0)
X = np.random.randint(0, 2, size=(1024, 256)).astype("float32")
y = (X @ np.random.randn(256, 1) * 10.0).astype("float32")  # targets of size ~100, not scaled

model = keras.Sequential([
    keras.Input(shape=(256,)),
    layers.Dense(500, activation="sigmoid"),
    layers.Dense(500, activation="sigmoid"),
    layers.Dense(500, activation="sigmoid"),
    layers.Dense(500, activation="sigmoid"),
    layers.Dense(1),
])
model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
w0 = model.layers[0].kernel.numpy().copy()
model.fit(X, y, batch_size=64, epochs=3, verbose=0)
print("first layer max weight change:", np.abs(model.layers[0].kernel.numpy() - w0).max())
