# source: https://github.com/tensorflow/tensorflow/issues/31919
# expect: cause=not-used line=14
import keras
import tensorflow as tf

generator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])
discriminator = keras.Sequential([keras.Input((2,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
bce = keras.losses.BinaryCrossentropy(from_logits=True)
real = tf.random.normal((8, 2))
noise = tf.random.normal((8, 4))
with tf.GradientTape() as gen_tape:
    fake = generator(noise, training=True)
    fake_output = discriminator(real, training=True)
    gen_loss = bce(tf.ones_like(fake_output), fake_output)
grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
print([g is None for g in grads])
