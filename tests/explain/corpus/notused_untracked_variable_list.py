# source: https://github.com/keras-team/keras/issues/16797 (variables appended to a list in a layer are not tracked, so not trained)
# expect: cause=not-used line=13
import keras
import tensorflow as tf


class Scaled(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(3)
        self.scales = []
        for i in range(2):
            self.scales.append(tf.Variable(1.0, name=f"scale{i}"))  # a bare tf.Variable: Keras 3 does not track it

    def call(self, x):
        return self.dense(x) * self.scales[0] + self.scales[1]


model = keras.Sequential([keras.Input((4,)), Scaled()])
optimizer = keras.optimizers.SGD(0.1)
x, y = tf.random.normal((8, 4)), tf.random.normal((8, 3))
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print([v.numpy() for v in model.layers[0].scales])  # still 1.0 and 1.0
