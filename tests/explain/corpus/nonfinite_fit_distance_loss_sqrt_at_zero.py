# source: http://ddrv.cn/?p=758668 (a distance loss, sqrt of a sum of squares, given to fit: padded rows where target and prediction are both 0 make the first step's gradient NaN)
# expect: cause=non-finite line=16
import keras
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(5)
x = rng.random((64, 4)).astype("float32")
y = rng.random((64, 2)).astype("float32")
x[::8], y[::8] = 0.0, 0.0  # padding rows: the model's output there is its bias, 0 at the start


def distance_loss(y_true, y_pred):
    dx = y_true[:, 0] - y_pred[:, 0]
    dy = y_true[:, 1] - y_pred[:, 1]
    return tf.reduce_mean(tf.sqrt(tf.add(tf.square(dx), tf.square(dy))))


keras.utils.set_random_seed(5)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
model.compile(optimizer=keras.optimizers.Adam(1e-3), loss=distance_loss)
history = model.fit(x, y, batch_size=64, epochs=3, verbose=0)
print("loss per epoch:", history.history["loss"])
