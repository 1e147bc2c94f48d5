# source: https://ai.stackexchange.com/questions/16557 (the answer: ReLU in the hidden layers and targets scaled to unit size, and the network learns)
# expect: clean
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

np.random.seed(0)
tf.random.set_seed(0)
X = np.random.randint(0, 2, size=(1024, 256)).astype("float32")
y = X @ np.random.randn(256, 1)
y = ((y - y.mean()) / y.std()).astype("float32")

model = keras.Sequential([
    keras.Input(shape=(256,)),
    layers.Dense(500, activation="relu"),
    layers.Dense(500, activation="relu"),
    layers.Dense(500, activation="sigmoid"),
    layers.Dense(1),
])
model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
model.fit(X, y, batch_size=64, epochs=3, verbose=0)
print("loss:", model.evaluate(X, y, verbose=0))
