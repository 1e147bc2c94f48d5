# source: https://github.com/keras-team/keras/issues/21207 (cause_custom_gradient_keyword.py in a layer's call, in a subclassed model under fit: a gradient-reversal layer hands its strength to a tf.custom_gradient function by keyword, and fit's traced step refuses it)
# expect: cause=custom-gradient-signature line=22
import keras
import numpy as np
import tensorflow as tf


@tf.custom_gradient
def reverse_gradient(x, strength):
    def grad(upstream):
        return -strength * upstream, None  # the features learn to fool the domain head

    return tf.identity(x), grad


class GradientReversal(keras.layers.Layer):
    def __init__(self, strength, **kwargs):
        super().__init__(**kwargs)
        self.strength = strength

    def call(self, inputs):
        return reverse_gradient(inputs, strength=tf.constant(self.strength))


class DomainClassifier(keras.Model):
    def __init__(self):
        super().__init__()
        self.features = keras.layers.Dense(8, activation="relu")
        self.reversal = GradientReversal(0.3)
        self.domain = keras.layers.Dense(1, activation="sigmoid")

    def call(self, x):
        return self.domain(self.reversal(self.features(x)))


keras.utils.set_random_seed(4)
model = DomainClassifier()
model.compile(optimizer="adam", loss="binary_crossentropy")
x = np.random.normal(size=(64, 5)).astype("float32")
y = (np.random.uniform(size=(64, 1)) > 0.5).astype("float32")
model.fit(x, y, epochs=2, batch_size=16, verbose=0)
print("trained")
