# source: https://github.com/tensorflow/tensorflow/issues/77559 (a tensor given to a tf.custom_gradient function by keyword is not one of its inputs; here the gradient-clipping layer of the usual answer)
# expect: cause=custom-gradient-signature line=22
import keras
import tensorflow as tf


@tf.custom_gradient
def clip_gradients(x, clip_norm):
    def grad(upstream):
        return tf.clip_by_norm(upstream, clip_norm), None  # no gradient for the norm itself

    return tf.identity(x), grad


encoder = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="tanh")])
head = keras.layers.Dense(1)
head.build((None, 8))
features = tf.random.normal((10, 6))
limit = tf.constant(0.5)
with tf.GradientTape() as tape:
    hidden = encoder(features)
    hidden = clip_gradients(hidden, clip_norm=limit)
    loss = tf.reduce_mean(tf.square(head(hidden)))
variables = encoder.trainable_variables + head.trainable_variables
grads = tape.gradient(loss, variables)
