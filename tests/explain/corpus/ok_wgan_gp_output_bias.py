# source: https://github.com/LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Tensorflow-2/issues/15 (a correct WGAN-GP critic step: the critic's output bias enters mean(D(fake)) − mean(D(real)) twice and cancels, so its gradient is exactly 0, as the maths gives)
# expect: clean
import keras
import tensorflow as tf

critic = keras.Sequential([keras.Input((6,)), keras.layers.Dense(20, activation="tanh"), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(2e-4, beta_1=0.5)


@tf.function
def critic_step(real, fake):
    with tf.GradientTape() as tape:
        critic_loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
        t = tf.random.uniform((tf.shape(real)[0], 1))
        between = real + t * (fake - real)
        with tf.GradientTape() as inner:
            inner.watch(between)
            judged = critic(between)
        slopes = inner.gradient(judged, between)
        penalty = tf.reduce_mean((tf.norm(slopes, axis=1) - 1.0) ** 2)
        total = critic_loss + 10.0 * penalty
    grads = tape.gradient(total, critic.trainable_variables)
    optimizer.apply_gradients(zip(grads, critic.trainable_variables))
    return total


for _ in range(3):
    critic_step(tf.random.normal((32, 6)) + 1.5, tf.random.normal((32, 6)))
