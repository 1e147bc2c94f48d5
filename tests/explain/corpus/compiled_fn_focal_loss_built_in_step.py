# source: https://github.com/mkocabas/focal-loss-keras/issues/17 (nonfinite_focal_loss_where_saturated.py trained by a @tf.function step whose first call also builds the model, the call the NaN comes at: a focal loss takes the log of p_t with no epsilon, and a saturated sigmoid gives p_t = 0)
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


model = keras.Sequential([keras.layers.Dense(12, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
optimizer, focal = keras.optimizers.SGD(0.01), binary_focal()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = focal(y, model(x))  # the first call builds the model's weights
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for start in range(0, 192, 48):
    print("loss:", float(train_step(features[start:start + 48], labels[start:start + 48])))
