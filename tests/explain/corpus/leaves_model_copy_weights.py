# source: https://github.com/tensorflow/tensorflow/issues/34335
# expect: cause=state-breaks-path line=23
import keras
import tensorflow as tf


class MetaModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden1 = keras.layers.Dense(5)
        self.out = keras.layers.Dense(1)

    def call(self, x):
        return self.out(keras.activations.relu(self.hidden1(x)))


x = tf.random.normal((4, 1))
meta_model = MetaModel()
meta_model(x)
with tf.GradientTape() as meta_tape:
    model_copy = MetaModel()
    model_copy(x)
    model_copy.set_weights(meta_model.get_weights())
    loss = tf.reduce_mean(tf.square(model_copy(x) - 1.0))
grads = meta_tape.gradient(loss, meta_model.trainable_variables)
print([g is None for g in grads])
