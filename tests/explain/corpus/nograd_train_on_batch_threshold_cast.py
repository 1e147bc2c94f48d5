# source: https://github.com/tensorflow/tensorflow/issues/44125 (thresholding predictions with a comparison)
# expect: cause=no-gradient-op line=11
import numpy as np
import tensorflow as tf
import keras

keras.utils.set_random_seed(0)
dense = keras.layers.Dense(3)
inputs = keras.Input((5,))
scores = keras.layers.Activation("sigmoid")(dense(inputs))
hard = keras.layers.Lambda(lambda s: tf.cast(s > 0.5, tf.float32))(scores)
model = keras.Model(inputs, hard)
model.compile(optimizer="adam", loss="binary_crossentropy")
x = np.random.rand(16, 5).astype("float32")
y = (np.random.rand(16, 3) > 0.5).astype("float32")
try:
    model.train_on_batch(x, y)
except ValueError as error:
    print("train_on_batch:", str(error).splitlines()[0])
