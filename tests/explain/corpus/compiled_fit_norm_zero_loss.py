# source: https://github.com/tensorflow/tensorflow/issues/5562 (nonfinite_norm_zero.py as a Keras loss under fit)
# expect: cause=non-finite line=12
import keras
import numpy as np
import tensorflow as tf

x = np.random.rand(32, 4).astype("float32")
y = np.zeros((32, 2), "float32")  # the targets the zero-initialised model already predicts


def euclidean(y_true, y_pred):  # a distance of 0 (an exact prediction): sqrt'(0) is inf
    return tf.sqrt(tf.reduce_sum(tf.square(y_true - y_pred), axis=1))


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, kernel_initializer="zeros")])
model.compile(optimizer="sgd", loss=euclidean)
model.fit(x, y, epochs=2, batch_size=8, verbose=0)
print(model.get_weights()[1])
