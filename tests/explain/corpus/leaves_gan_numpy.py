# source: https://github.com/tensorflow/tensorflow/issues/31919
# expect: cause=leaves-tensorflow line=24
import keras
import numpy as np
import tensorflow as tf

G = keras.Sequential([keras.Input((1,)), keras.layers.Dense(8, activation="elu"), keras.layers.Dense(10)])
D = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="elu"), keras.layers.Dense(1, activation="sigmoid")])
criterion = keras.losses.BinaryCrossentropy()
optimizer = keras.optimizers.SGD(1e-3)


def get_moments(d):
    mean = np.mean(d)
    diffs = d - mean
    std = np.sqrt(np.mean(np.power(diffs, 2.0)))
    zscores = diffs / std
    return np.array([mean, std, np.mean(np.power(zscores, 3.0)), np.mean(np.power(zscores, 4.0)) - 3.0])


gen_input = tf.random.uniform((10, 1))
with tf.GradientTape() as tape:
    g_fake_data = G(gen_input)
    dg_fake_decision = D(get_moments(g_fake_data.numpy().T).reshape((1, 4)))
    g_error = criterion(tf.ones((1, 1)), dg_fake_decision)
grads = tape.gradient(g_error, G.trainable_variables)
print([g is None for g in grads])
