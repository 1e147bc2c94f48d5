# source: https://github.com/manicman1999/StyleGAN2-Tensorflow-2.0/issues/14
# expect: cause=tape-reused line=14
import keras
import tensorflow as tf

G = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
D = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
noise = tf.random.normal((8, 4))
real = tf.random.normal((8, 2))


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        fake_output = D(G(noise))
        real_output = D(real)
        gen_loss = -tf.reduce_mean(fake_output)
        disc_loss = tf.reduce_mean(fake_output) - tf.reduce_mean(real_output)
    gradients_of_generator = tape.gradient(gen_loss, G.trainable_variables)
    gradients_of_discriminator = tape.gradient(disc_loss, D.trainable_variables)
    return gradients_of_generator, gradients_of_discriminator


try:
    train_step()
except RuntimeError as error:
    print("RuntimeError:", str(error)[:60])
