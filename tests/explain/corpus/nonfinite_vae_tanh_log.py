# source: https://github.com/pkmital/tensorflow_tutorials/issues/23 (a variational autoencoder whose decoder ends in tanh: "tanh can create negative values for y that are later fed into log", and the costs are NaN; sigmoid fixes it)
# expect: cause=non-finite line=23
import numpy as np
import tensorflow as tf

tf.random.set_seed(2)
images = (np.random.default_rng(2).random((32, 64)) > 0.5).astype("float32")
encoder = tf.keras.layers.Dense(16, activation="relu")
to_mean, to_log_sigma = tf.keras.layers.Dense(4), tf.keras.layers.Dense(4)
decoder_hidden = tf.keras.layers.Dense(16, activation="relu")
decoder_out = tf.keras.layers.Dense(64, activation="tanh",  # the tutorial's tanh: its outputs reach below 0
                                    kernel_initializer=tf.keras.initializers.RandomNormal(stddev=4.0))
optimizer = tf.keras.optimizers.Adam(1e-3)


def cost(x):
    h = encoder(x)
    mean, log_sigma = to_mean(h), to_log_sigma(h)
    z = mean + tf.exp(log_sigma) * tf.random.normal(tf.shape(mean))
    y = decoder_out(decoder_hidden(z))
    latent = -0.5 * tf.reduce_sum(1.0 + 2.0 * log_sigma - tf.square(mean) - tf.exp(2.0 * log_sigma), 1)
    # the log of a negative y is NaN
    reconstruction = -tf.reduce_sum(x * tf.math.log(1e-10 + y) + (1 - x) * tf.math.log(1e-10 + 1 - y), 1)
    return tf.reduce_mean(reconstruction + latent)


for step in range(3):
    with tf.GradientTape() as tape:
        loss = cost(images)
    variables = (encoder.trainable_variables + to_mean.trainable_variables + to_log_sigma.trainable_variables
                 + decoder_hidden.trainable_variables + decoder_out.trainable_variables)
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    print("step", step, "cost", float(loss))
