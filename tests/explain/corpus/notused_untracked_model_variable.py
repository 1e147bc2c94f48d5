# source: https://github.com/tensorflow/probability/issues/946 (a variable held by a Keras model is not in trainable_weights and gets no gradient)
# expect: cause=not-used line=11
import keras
import tensorflow as tf


class Model(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(5)
        self.loc = tf.Variable(tf.ones([5]), name="loc")

    def call(self, inputs):
        return self.hidden(inputs) + self.loc


model = Model()
optimizer = keras.optimizers.Adam(0.01)
x, y = tf.random.normal((16, 3)), tf.random.normal((16, 5))
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
print(model.loc.numpy())  # never moved
