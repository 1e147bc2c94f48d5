# source: https://github.com/raghakot/keras-vis/issues/200 (activation maximisation with filter_indices=None on a softmax output: a loop adds every class's mean score to the loss, and the input gradient is zero)
# expect: cause=softmax-sum line=20
import numpy as np
import tensorflow as tf
import keras

keras.utils.set_random_seed(6)
net = keras.Sequential([keras.Input((12, 12, 1)), keras.layers.Conv2D(4, 3, activation="tanh"),
                        keras.layers.Flatten(), keras.layers.Dense(5, activation="softmax")])
picture = tf.constant(np.random.rand(2, 12, 12, 1).astype("float32"))
chosen = None  # every class


def visualise(scores, classes=None):
    if classes is None:
        classes = range(scores.shape[-1])
    objective = 0.0
    for c in classes:
        column = scores[:, c]
        objective = objective - tf.reduce_mean(column)
    return objective


with tf.GradientTape() as tape:
    tape.watch(picture)
    objective = visualise(net(picture), chosen)
saliency = tape.gradient(objective, picture)
print("largest |gradient|:", float(tf.reduce_max(tf.abs(saliency))))
