# source: https://github.com/manicman1999/StyleGAN2-Tensorflow-2.0/issues/14
# expect: cause=stop-gradient line=15
import keras
import tensorflow as tf

generator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
discriminator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
gen_opt = keras.optimizers.Adam(1e-4)
disc_opt = keras.optimizers.Adam(1e-4)
bce = keras.losses.BinaryCrossentropy(from_logits=True)
real = tf.random.normal((16, 4))
for step in range(2):
    noise = tf.random.normal((16, 8))
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        fake = tf.stop_gradient(generator(noise, training=True))
        real_output = discriminator(real, training=True)
        fake_output = discriminator(fake, training=True)
        gen_loss = bce(tf.ones_like(fake_output), fake_output)
        disc_loss = bce(tf.ones_like(real_output), real_output) + bce(tf.zeros_like(fake_output), fake_output)
    gen_grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
    disc_grads = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
    disc_opt.apply_gradients(zip(disc_grads, discriminator.trainable_variables))
    print(step, [g is None for g in gen_grads])
