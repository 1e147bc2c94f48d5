# source: https://github.com/tensorflow/tensorflow/issues/40508 (printing err.numpy() inside a custom loss given to compile: "'Tensor' object has no attribute 'numpy'")
# expect: cause=leaves-tensorflow line=12
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(11)


def loss(yT, yP):
    err = yT - yP
    print(err.numpy())
    squaredError = tf.square(err)
    meanError = tf.reduce_mean(squaredError)
    return meanError


rng = np.random.default_rng(11)
xTrain = rng.uniform(size=(128, 28, 28)).astype("float32")
yTrain = keras.utils.to_categorical(rng.integers(0, 10, 128), num_classes=10)
model = keras.Sequential([keras.Input((28, 28)), keras.layers.Flatten(), keras.layers.Dense(100, activation="relu"),
                          keras.layers.Dense(10, activation="softmax")])
model.compile(optimizer="adam", loss=loss, metrics=["accuracy"])
model.fit(xTrain, yTrain, epochs=1, batch_size=32, verbose=0)
