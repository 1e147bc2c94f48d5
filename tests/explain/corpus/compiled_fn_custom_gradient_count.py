# source: https://github.com/tensorflow/tensorflow/issues/58941 (cause_custom_gradient_count.py with its step in a @tf.function: a tf.custom_gradient whose gradient function returns fewer gradients than the function has inputs; traced, TensorFlow names only the recorded op)
# expect: cause=custom-gradient-signature line=11
import keras
import tensorflow as tf


@tf.custom_gradient
def reverse_gradient(x, strength):
    # the domain-adaptation trick: identity forward, the gradient flipped and scaled backward
    def grad(dy):
        return -strength * dy  # one gradient, but the function has two inputs (x and strength)

    return tf.identity(x), grad


keras.utils.set_random_seed(1)
features = keras.layers.Dense(4)
features.build((None, 3))
domain_head = keras.layers.Dense(1)
domain_head.build((None, 4))
x = tf.random.normal((8, 3))


@tf.function
def domain_step(x):
    with tf.GradientTape() as tape:
        h = reverse_gradient(features(x), tf.constant(0.5))
        domain_loss = tf.reduce_mean(tf.square(domain_head(h)))
    return tape.gradient(domain_loss, features.trainable_variables + domain_head.trainable_variables)


grads = domain_step(x)
print([float(tf.reduce_max(tf.abs(g))) for g in grads])
