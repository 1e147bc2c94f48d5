# source: https://github.com/keras-team/keras/issues/15253 (a negative log likelihood written with scipy.special.xlogy, given to compile as the loss of a classifier; NumPy's log here, x * log(y) being what xlogy computes)
# expect: cause=leaves-tensorflow line=11
import keras
import numpy as np

keras.utils.set_random_seed(5)


def nll(y_true, y_pred):
    # -xlogy(y_true, y_pred) - xlogy(1 - y_true, 1 - y_pred)
    loss = -y_true * np.log(y_pred) - (1 - y_true) * np.log(1 - y_pred)
    return loss


model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer=keras.optimizers.SGD(1e-4, momentum=0.9), loss=nll, metrics=["accuracy"])
rng = np.random.default_rng(5)
x = rng.normal(size=(96, 12)).astype("float32")
y = np.eye(3, dtype="float32")[rng.integers(0, 3, 96)]
model.fit(x, y, batch_size=32, epochs=2, verbose=0)
