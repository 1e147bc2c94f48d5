# source: https://www.it1352.com/1526058.html (a hand-written binary cross-entropy, log(y_pred) and log(1 - y_pred), on unscaled inputs: the sigmoid rounds to exactly 0 or 1 and the loss turns NaN)
# expect: cause=non-finite line=11
import keras
import numpy as np
from keras import ops

rng = np.random.default_rng(2)


def bce(y_true, y_pred):
    terms = -(y_true * ops.log(y_pred) + (1 - y_true) * ops.log(1 - y_pred))
    return ops.mean(terms)


x = (rng.random((256, 8)) * 100.0).astype("float32")  # raw features, not scaled
y = (rng.random((256, 1)) > 0.5).astype("float32")
keras.utils.set_random_seed(2)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.Adam(1e-2), loss=bce)
for step in range(12):
    rows = rng.choice(256, 32, replace=False)
    print("step", step, "loss", model.train_on_batch(x[rows], y[rows]))
print("NaN in the weights:", any(np.isnan(w).any() for w in model.get_weights()))
