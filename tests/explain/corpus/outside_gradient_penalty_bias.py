# source: https://github.com/dragen1860/TensorFlow-2.x-Tutorials/pull/35 (a WGAN-GP critic step whose gradient penalty was computed after the tape's `with` block, so the penalty never trained the critic: its gradient for every critic weight is None)
# expect: cause=outside-tape line=23
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(11)
critic = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="tanh"), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
real = tf.constant(np.random.normal(1.0, 0.5, size=(32, 4)).astype("float32"))
fake = tf.constant(np.random.normal(size=(32, 4)).astype("float32"))


@tf.function
def critic_step(real, fake):
    alpha = tf.random.uniform((32, 1))
    interpolated = alpha * real + (1.0 - alpha) * fake
    with tf.GradientTape(persistent=True) as tape:
        with tf.GradientTape() as gp_tape:
            gp_tape.watch(interpolated)
            score = critic(interpolated, training=True)
        wasserstein = tf.reduce_mean(critic(fake, training=True)) - tf.reduce_mean(critic(real, training=True))
    slopes = tf.norm(gp_tape.gradient(score, interpolated), axis=1)
    penalty = 10.0 * tf.reduce_mean(tf.square(slopes - 1.0))
    w_grads = tape.gradient(wasserstein, critic.trainable_variables)
    optimizer.apply_gradients(zip(w_grads, critic.trainable_variables))
    gp_grads = tape.gradient(penalty, critic.trainable_variables)
    return penalty, gp_grads


for step in range(3):
    penalty, gp_grads = critic_step(real, fake)
    print(step, float(penalty), [g is None for g in gp_grads])
