# source: https://github.com/manicman1999/StyleGAN2-Tensorflow-2.0/issues/14 (the generator's output stopped, its None gradients given to the optimizer)
# expect: cause=stop-gradient line=16
# expect-keras: cause=stop-gradient line=16
import keras
import tensorflow as tf

generator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4)])
discriminator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-4)
bce = keras.losses.BinaryCrossentropy(from_logits=True)
real = tf.random.normal((16, 4))
variables = generator.trainable_variables + discriminator.trainable_variables
for step in range(2):
    noise = tf.random.normal((16, 8))
    with tf.GradientTape() as tape:
        fake = tf.stop_gradient(generator(noise, training=True))
        fake_output, real_output = discriminator(fake), discriminator(real)
        gen_loss = bce(tf.ones_like(fake_output), fake_output)
        disc_loss = bce(tf.ones_like(real_output), real_output) + bce(tf.zeros_like(fake_output), fake_output)
        loss = gen_loss + disc_loss
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
