# source: https://github.com/rstudio/keras3/issues/193 (nograd_gru_directional_accuracy_loss.py trained by fit, as the report's model was: Keras's step traces the GRU's loop over time into a While op, through which the path is followed to the comparison of signs)
# expect: cause=no-gradient-op line=15
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(9)
rng = np.random.default_rng(9)
series = np.cumsum(rng.normal(size=(64, 9, 1)), axis=1).astype("float32")
windows, targets = series[:, :8], series[:, 8]


def directional_loss(y_true, y_pred):
    moved, predicted = y_true[:, :1] - y_true[:, 1:], y_pred - y_true[:, 1:]
    same_way = tf.equal(tf.sign(moved), tf.sign(predicted))
    return 1.0 - tf.reduce_mean(tf.cast(same_way, tf.float32))


model = keras.Sequential([keras.Input((8, 1)), keras.layers.GRU(6), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.Adam(0.01), loss=directional_loss)
# the last value of each window rides along in y_true, so the loss can take the change from it
model.fit(windows, np.concatenate([targets, windows[:, -1]], axis=1), epochs=2, batch_size=32, verbose=0)
