# source: https://github.com/tensorflow/tensorflow/issues/36880 ("No gradients for bias and kernels in Dense layer": call() runs the hidden layers, then computes the output from the input again, so the hidden layers' weights get None)
# expect: cause=not-used line=19
import keras
import numpy as np
import tensorflow as tf


class Regressor(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden_a = keras.layers.Dense(32, activation="relu")
        self.hidden_b = keras.layers.Dense(16, activation="relu")
        self.head = keras.layers.Dense(1)

    def call(self, features):
        h = self.hidden_a(features)
        h = self.hidden_b(h)
        # meant self.head(h)
        h = self.head(features)
        return h


model = Regressor()
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(64, 6).astype("float32")
y = x.sum(axis=1, keepdims=True)


@tf.function
def step(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(xb) - yb))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


print(float(step(x, y)))
