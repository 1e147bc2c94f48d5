# source: https://github.com/pumpikano/tf-dann/issues/27 (a gradient reversal layer as @tf.custom_gradient def flip_grad_layer(x, l): its gradient function must return one gradient per input, "tf.negative(dy) * l, None"; returning only the first, TensorFlow refuses the gradient call)
# expect: cause=custom-gradient-signature line=11
import keras
import numpy as np
import tensorflow as tf


@tf.custom_gradient
def flip_grad_layer(x, l):
    def grad(dy):
        return tf.negative(dy) * l
    return tf.identity(x), grad


keras.utils.set_random_seed(1)
features = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="tanh")])
domain = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
x = tf.constant(np.random.normal(size=(16, 5)).astype("float32"))
with tf.GradientTape() as tape:
    domain_logits = domain(flip_grad_layer(features(x), tf.constant(0.5)))
    loss = tf.reduce_mean(tf.square(domain_logits))
grads = tape.gradient(loss, features.trainable_variables)
print([float(tf.reduce_max(tf.abs(g))) for g in grads])
