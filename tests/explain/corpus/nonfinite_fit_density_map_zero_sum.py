# source: https://github.com/ZhengPeng7/CSRNet-Keras/issues/5 (a crowd-counting net whose loss is NaN from the start: density maps are rescaled as dm / (np.sum(dm) / GT) with GT = int(round(np.sum(dm))), which is 0 / 0 for an image with no head in it)
# expect: cause=non-finite line=27
import keras
import numpy as np

keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)


def density_map(points, size=16):
    dm = np.zeros((size, size), dtype=np.float32)
    for r, c in points:
        dm[max(0, r - 1):r + 2, max(0, c - 1):c + 2] += 1.0 / 9
    GT = int(round(np.sum(dm)))
    return dm / (np.sum(dm) / GT)  # an image with no head: 0 / 0


x_train = rng.uniform(0, 1, size=(24, 16, 16, 1)).astype("float32")
y_train = np.stack([density_map([tuple(p) for p in rng.integers(1, 15, size=(int(n), 2))])
                    for n in rng.integers(0, 4, size=24)])[..., None]
model = keras.Sequential([keras.Input((16, 16, 1)),
                          keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
                          keras.layers.Conv2D(1, 1, padding="same", activation="relu")])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=1e-3), loss="mse")
print("images with no head:", int(np.isnan(y_train).reshape(24, -1).any(axis=1).sum()))

history = model.fit(x_train, y_train, epochs=2, batch_size=4, shuffle=False, verbose=0)
print("loss per epoch:", history.history["loss"])
