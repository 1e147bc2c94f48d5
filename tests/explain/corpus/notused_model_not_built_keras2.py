# source: https://github.com/dominic-z/python-tool-demo (a subclassed tf.keras model: trainable_variables holds no layer weights before its first call)
# keras: 2
# expect: cause=not-used line=24
import numpy as np
import tensorflow as tf
from tensorflow import keras


class MyModelWithoutBuild(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense_layer1 = keras.layers.Dense(units=2)
        self.dense_layer2 = keras.layers.Dense(units=1)

    def call(self, inputs):
        return self.dense_layer2(self.dense_layer1(inputs))


model = MyModelWithoutBuild()
optimizer = keras.optimizers.SGD(0.01)
variables = model.trainable_variables  # before the first call: an empty list
x, y = np.random.rand(10, 10).astype("float32"), np.random.rand(10, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
grads = tape.gradient(loss, variables)
try:
    optimizer.apply_gradients(zip(grads, variables))
except ValueError as error:
    print("no training:", error)
