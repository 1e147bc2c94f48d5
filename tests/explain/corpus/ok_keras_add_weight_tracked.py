# source: https://github.com/keras-team/keras/issues/16797 (the answer: "If instead of tf.Variable you use self.add_weight, it works")
# expect: clean
import keras
import tensorflow as tf


class Scaled(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(3)
        self.scales = [self.add_weight(shape=(), initializer="ones", name=f"scale{i}") for i in range(2)]
        self.calls = tf.Variable(0, trainable=False)  # a counter, not a weight: it needs no gradient

    def call(self, x):
        self.calls.assign_add(1)
        return self.dense(x) * self.scales[0] + self.scales[1]


model = keras.Sequential([keras.Input((4,)), Scaled()])
optimizer = keras.optimizers.SGD(0.1)
x, y = tf.random.normal((8, 4)), tf.random.normal((8, 3))
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
