# source: https://github.com/tensorflow/tensorflow/issues/40632 (weights concatenated in build(): "No gradients provided")
# expect: cause=outside-tape line=13
# expect-keras: cause=outside-tape line=13
import keras
import tensorflow as tf


class Joined(keras.layers.Layer):
    def build(self, input_shape):
        self.w1 = self.add_weight(shape=(input_shape[-1], 2), initializer="random_normal")
        self.w2 = self.add_weight(shape=(input_shape[-1], 2), initializer="random_normal")
        # one tensor made from both weights, once: it is computed here, not when the loss is
        self.kernel = tf.concat([self.w1, self.w2], axis=1)

    def call(self, x):
        return tf.matmul(x, self.kernel)


model = keras.Sequential([keras.Input((3,)), Joined(), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.1)
x, y = tf.random.normal((8, 3)), tf.random.normal((8, 1))
for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
