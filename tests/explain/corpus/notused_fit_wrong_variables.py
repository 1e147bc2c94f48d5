# source: https://github.com/tensorflow/tensorflow/issues/31265
# expect: cause=not-used line=23
import keras
import numpy as np
import tensorflow as tf


class TwoHeads(keras.Model):
    def __init__(self):
        super().__init__()
        self.body = keras.layers.Dense(8, activation="relu")
        self.head_a = keras.layers.Dense(1)
        self.head_b = keras.layers.Dense(1)

    def call(self, x):
        h = self.body(x)
        return self.head_a(h), self.head_b(h)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            a, _ = self(x, training=True)
            loss = tf.reduce_mean(tf.square(a - y))
        grads = tape.gradient(loss, self.head_b.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.head_b.trainable_variables))
        return {"loss": loss}


model = TwoHeads()
model.compile(optimizer="sgd")
try:
    model.fit(np.random.rand(16, 3), np.random.rand(16, 1), epochs=1, batch_size=8, verbose=0)
except ValueError as error:
    print("fit failed:", str(error)[:50])
