# source: https://github.com/tensorflow/tensorflow/issues/57365 ("Gradient tape *inside* tf.function broken for tf.Variable argument": the function reads mu by name and is given mu, then sigma; it is not traced again and returns mu's gradient for sigma)
# expect: cause=frozen-python-state line=14
import numpy as np
import tensorflow as tf

mu = tf.Variable(0.0)
sigma = tf.Variable(1.5)
samples = tf.constant(np.random.default_rng(7).normal(2.0, 0.7, size=256), tf.float32)


@tf.function
def gradient_for(parameter):
    with tf.GradientTape() as tape:
        z = (samples - mu) / sigma
        nll = tf.reduce_mean(0.5 * z ** 2 + tf.math.log(sigma))
    return tape.gradient(nll, parameter)


for step in range(4):
    d_mu = gradient_for(mu)
    d_sigma = gradient_for(sigma)
    mu.assign_sub(0.3 * d_mu)
    sigma.assign_sub(0.3 * d_sigma)
print("mu", float(mu), "sigma", float(sigma))
