# source: https://github.com/keras-team/keras/issues/9130 (leaves_numpy_function.py's kind: a loss computed in NumPy through tf.numpy_function, given to compile and trained with fit)
# expect: cause=leaves-tensorflow line=14
import numpy as np
import keras
import tensorflow as tf


def np_squared_error(y_true, y_pred):
    error = np.square(y_true - y_pred)
    return np.mean(error, axis=-1).astype(np.float32)


def loss(y_true, y_pred):
    return tf.reshape(tf.numpy_function(np_squared_error, [y_true, y_pred], tf.float32), [-1])


keras.utils.set_random_seed(0)
x = np.random.rand(64, 3).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=loss)
model.fit(x, y, epochs=2, batch_size=16, verbose=0)
