# source: https://github.com/keras-team/keras/issues/1874 (a regression to values in (0, +inf) with a ReLU output after sigmoid layers: "I will get all 0 output and the loss will not decrease")
# expect: cause=dead-relu line=19
import keras
import numpy as np

keras.utils.set_random_seed(1)
rng = np.random.default_rng(1)
X = rng.uniform(-1, 1, size=(512, 6)).astype("float32")
y = (np.exp(2 * X[:, :1]) * 40000.0 + 5000.0).astype("float32")  # prices: large positive targets

model = keras.Sequential([
    keras.Input((6,)),
    keras.layers.BatchNormalization(),
    keras.layers.Dense(64, activation="sigmoid"),
    keras.layers.Dense(64, activation="sigmoid"),
    keras.layers.Dense(64, activation="sigmoid"),
])
# the output must be positive
model.add(keras.layers.Dense(1, activation="relu"))
model.compile(loss="mean_squared_error", optimizer="rmsprop")
history = model.fit(X, y, epochs=3, batch_size=64, verbose=0)
print(history.history["loss"], model.predict(X[:5], verbose=0).ravel())
