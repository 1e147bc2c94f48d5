# source: https://github.com/tensorflow/tensorflow/issues/38211 (tf.Variable attributes missing from trainable_variables)
# expect: cause=not-used line=11
# expect-keras: cause=not-used line=11
import keras
import tensorflow as tf


class Scale(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.factor = tf.Variable(1.0, name="factor")  # Keras 3 does not track a bare tf.Variable

    def call(self, x):
        return x * self.factor


model = keras.Sequential([keras.Input((3,)), Scale()])
optimizer = keras.optimizers.SGD(0.1)
x = tf.random.normal((8, 3))
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - 2.0 * x))
    grads = tape.gradient(loss, model.trainable_variables)
    try:
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    except ValueError as error:
        print("step", step, "failed:", error)
