# source: https://github.com/mkocabas/focal-loss-keras/issues/17 (a focal loss picks p_t with tf.where on the labels, then takes its log with no epsilon: a saturated sigmoid gives p_t = 0, the log -inf, and after the first step every weight is NaN)
# expect: cause=non-finite line=16
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(3)
features = np.random.uniform(0, 200, size=(192, 6)).astype("float32")  # raw scores, not scaled
labels = (np.random.rand(192, 1) < 0.4).astype("float32")


def binary_focal(gamma=2.0, alpha=0.25):
    def loss(y_true, y_pred):
        p_t = tf.where(tf.equal(y_true, 1.0), y_pred, 1.0 - y_pred)
        weight = tf.where(tf.equal(y_true, 1.0), alpha, 1.0 - alpha)
        return -tf.reduce_mean(weight * tf.pow(1.0 - p_t, gamma) * tf.math.log(p_t))
    return loss


model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(12, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.SGD(0.01), loss=binary_focal())
history = model.fit(features, labels, epochs=2, batch_size=48, verbose=0)
print("losses:", history.history["loss"])
