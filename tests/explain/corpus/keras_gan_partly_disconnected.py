# source: https://github.com/tensorflow/tensorflow/issues/38607 (the warning "Gradients do not exist for variables")
# expect: cause=stop-gradient line=26
# expect-keras: cause=stop-gradient line=26
import keras
import tensorflow as tf

generator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(4)])
discriminator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                                  keras.layers.Dense(1)])
bce = keras.losses.BinaryCrossentropy(from_logits=True)
g_optimizer = keras.optimizers.Adam(1e-4)
d_optimizer = keras.optimizers.Adam(1e-4)


def train_step(real):
    noise = tf.random.normal((16, 8))
    with tf.GradientTape() as d_tape:
        fake = generator(noise)
        d_loss = bce(tf.ones((16, 1)), discriminator(real)) + bce(tf.zeros((16, 1)), discriminator(fake))
    d_grads = d_tape.gradient(d_loss, discriminator.trainable_variables)
    d_optimizer.apply_gradients(zip(d_grads, discriminator.trainable_variables))
    with tf.GradientTape() as g_tape:
        fake = generator(noise)
        hidden = discriminator.layers[0](fake)
        score = discriminator.layers[1](tf.stop_gradient(hidden))  # "freeze" the discriminator
        g_loss = bce(tf.ones((16, 1)), score)
    trainable = generator.trainable_variables + discriminator.layers[1].trainable_variables
    g_grads = g_tape.gradient(g_loss, trainable)
    g_optimizer.apply_gradients(zip(g_grads, trainable))  # Keras only warns, and trains the head alone


for _ in range(2):
    train_step(tf.random.normal((16, 4)))
