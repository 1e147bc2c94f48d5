# source: https://github.com/rstudio/keras3/issues/193 (a GRU forecaster trained on mean directional accuracy: the loss compares the signs of the true and predicted changes, and a comparison of signs has no gradient, so none reaches the recurrent weights or the head)
# expect: cause=no-gradient-op line=15
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(9)
rng = np.random.default_rng(9)
series = np.cumsum(rng.normal(size=(64, 9, 1)), axis=1).astype("float32")
windows, targets = series[:, :8], series[:, 8]


def directional_loss(y_true, y_pred):
    moved, predicted = y_true - windows_last, y_pred - windows_last
    same_way = tf.equal(tf.sign(moved), tf.sign(predicted))
    return 1.0 - tf.reduce_mean(tf.cast(same_way, tf.float32))


model = keras.Sequential([keras.Input((8, 1)), keras.layers.GRU(6), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(0.01)
windows_last = tf.constant(windows[:, -1])
for epoch in range(2):
    with tf.GradientTape() as tape:
        loss = directional_loss(targets, model(windows))
    grads = tape.gradient(loss, model.trainable_variables)
    print(epoch, float(loss), [g is None for g in grads])
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
