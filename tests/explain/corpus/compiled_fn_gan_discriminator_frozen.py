# source: https://github.com/eriklindernoren/Keras-GAN/issues/22 (cause_gan_discriminator_frozen.py compiled: the discriminator set trainable = False for the combined model, then trained by a @tf.function step of its own)
# expect: cause=unwatched line=14
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
generator = keras.Sequential([keras.Input((3,)), keras.layers.Dense(6)], name="generator")
discriminator = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1, activation="sigmoid")], name="discriminator")
d_optimizer = keras.optimizers.Adam(1e-3)
g_optimizer = keras.optimizers.Adam(1e-3)
bce = keras.losses.BinaryCrossentropy()
noise_in = keras.Input((3,))
# frozen for the combined model, the Keras 2 recipe: here it also freezes the discriminator's own training
discriminator.trainable = False
combined = keras.Model(noise_in, discriminator(generator(noise_in)))
real = tf.random.normal((8, 6))


@tf.function
def train_step(real, noise):
    with tf.GradientTape() as d_tape:
        d_loss = bce(tf.ones((8, 1)), discriminator(real)) + bce(tf.zeros((8, 1)), discriminator(generator(noise)))
    d_grads = d_tape.gradient(d_loss, discriminator.trainable_variables)  # empty: nothing trains
    d_optimizer.apply_gradients(zip(d_grads, discriminator.trainable_variables))
    with tf.GradientTape() as g_tape:
        g_loss = bce(tf.ones((8, 1)), combined(noise))
    g_grads = g_tape.gradient(g_loss, generator.trainable_variables)
    g_optimizer.apply_gradients(zip(g_grads, generator.trainable_variables))
    return d_loss, g_loss


for step in range(2):
    train_step(real, tf.random.normal((8, 3)))
