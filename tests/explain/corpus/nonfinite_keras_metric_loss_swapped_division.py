# source: https://keras.io/api/losses/ (a loss is any callable with the signature loss_fn(y_true, y_pred); a percentage-error loss written with its parameters the other way round divides by the labels, some of which are 0)
# expect: cause=non-finite line=12
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(21)
features = np.random.rand(64, 4).astype("float32")
demand = np.random.poisson(1.0, size=(64, 1)).astype("float32")  # counts: many are 0


def percentage_error(output, target):
    return tf.reduce_mean(tf.abs((target - output) / output))


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss=percentage_error)
model.fit(features, demand, epochs=1, batch_size=16, verbose=0)
print("weights finite:", all(np.isfinite(w).all() for w in model.get_weights()))
