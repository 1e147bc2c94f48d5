# source: https://github.com/tensorflow/tensorflow/issues/38211 (the fix: add_weight, and a model built before its variables are read)
# expect: clean
import keras
import tensorflow as tf


class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.factor = self.add_weight(shape=(), initializer="ones", name="factor")

    def call(self, x):
        return x * self.factor


model = keras.Sequential([keras.Input((3,)), Scale(), keras.layers.Dense(2)])
variables = model.trainable_variables  # the Input makes Keras build the model now
optimizer = keras.optimizers.SGD(0.1)
x = tf.random.normal((8, 3))
for _ in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - 1.0))
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
print(len(variables), float(loss))
