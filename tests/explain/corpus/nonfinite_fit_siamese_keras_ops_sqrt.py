# source: https://github.com/sounakdey/SigNet/issues/1 (contrastive loss, euclidean distance of identical pairs)
# expect: cause=non-finite line=12
import numpy as np
import keras
from keras import ops

keras.utils.set_random_seed(0)


def euclidean_distance(vects):
    x, y = vects
    return ops.sqrt(ops.sum(ops.square(x - y), axis=1, keepdims=True))


def contrastive_loss(y_true, y_pred):
    margin = 1.0
    return ops.mean(y_true * ops.square(y_pred) + (1 - y_true) * ops.square(ops.maximum(margin - y_pred, 0)))


base = keras.Sequential([keras.layers.Dense(8, activation="relu"), keras.layers.Dense(4)])
a = keras.Input((6,))
b = keras.Input((6,))
distance = keras.layers.Lambda(euclidean_distance)([base(a), base(b)])
model = keras.Model([a, b], distance)
model.compile(optimizer="adam", loss=contrastive_loss)
x = np.random.rand(64, 6).astype("float32")
pairs_b = x.copy()
pairs_b[32:] = np.random.rand(32, 6)
labels = (np.random.rand(64) > 0.5).astype("float32")  # some identical pairs are labelled dissimilar
history = model.fit([x, pairs_b], labels, epochs=2, batch_size=64, verbose=0)
print("loss", history.history["loss"])
print("kernel finite", all(np.isfinite(w).all() for w in model.get_weights()))
