# source: https://github.com/eriklindernoren/Keras-GAN/issues/215 (a WGAN-GP whose interpolated images are not watched by the penalty's tape: its gradient is None, and the penalty's tf.square of it raises inside fit)
# expect: cause=unwatched line=20
import keras
import tensorflow as tf


class Critic(keras.Model):
    def __init__(self):
        super().__init__()
        self.net = keras.Sequential([keras.layers.Dense(24, activation="relu"), keras.layers.Dense(1)])

    def call(self, x):
        return self.net(x)

    def train_step(self, data):
        real, fake = data
        with tf.GradientTape() as tape:
            wasserstein = tf.reduce_mean(self(fake)) - tf.reduce_mean(self(real))
            eps = tf.random.uniform((tf.shape(real)[0], 1))
            mixed = eps * real + (1.0 - eps) * fake
            with tf.GradientTape() as penalty_tape:
                score = self(mixed)
            slopes = penalty_tape.gradient(score, mixed)
            penalty = tf.reduce_mean(tf.square(tf.norm(slopes, axis=1) - 1.0))
            loss = wasserstein + 10.0 * penalty
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


critic = Critic()
critic.compile(optimizer=keras.optimizers.Adam(1e-4))
real_images = tf.random.normal((64, 10)) + 1.0
fake_images = tf.random.normal((64, 10))
critic.fit(tf.data.Dataset.from_tensor_slices((real_images, fake_images)).batch(16), epochs=1, verbose=0)
