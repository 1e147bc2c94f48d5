# source: https://www.tensorflow.org/tutorials/generative/dcgan (the generator's loss reads the discriminator's weights; only the generator's are asked for)
# expect: clean
import keras
import tensorflow as tf

generator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6)])
discriminator = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1)])
g_opt, d_opt = keras.optimizers.Adam(1e-3), keras.optimizers.Adam(1e-3)
bce = keras.losses.BinaryCrossentropy(from_logits=True)
real = tf.random.normal((8, 6))
for step in range(2):
    noise = tf.random.normal((8, 4))
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        fake = generator(noise)
        fake_out, real_out = discriminator(fake), discriminator(real)
        g_loss = bce(tf.ones_like(fake_out), fake_out)
        d_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)
    g_opt.apply_gradients(zip(g_tape.gradient(g_loss, generator.trainable_variables), generator.trainable_variables))
    d_opt.apply_gradients(zip(d_tape.gradient(d_loss, discriminator.trainable_variables),
                              discriminator.trainable_variables))
