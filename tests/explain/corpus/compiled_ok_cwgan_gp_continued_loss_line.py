# source: https://github.com/tensorflow/tensorflow/issues/36436 (the fixed program: a conditional WGAN-GP critic step whose loss is written over two lines with a backslash; the critic's output bias enters mean(D(fake)) − mean(D(real)) twice and cancels, so its gradient is exactly 0, as the maths gives)
# expect: clean
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
img_in, label_in = keras.Input((12,)), keras.Input((3,))
hidden = keras.layers.LeakyReLU(0.2)(keras.layers.Dense(16)(keras.layers.Concatenate()([img_in, label_in])))
critic = keras.Model([img_in, label_in], keras.layers.Dense(1)(hidden))
optimizer = keras.optimizers.RMSprop(5e-5)


def gradient_penalty(real, fake, labels):
    alpha = tf.random.uniform((tf.shape(real)[0], 1))
    between = alpha * real + (1 - alpha) * fake
    with tf.GradientTape() as inner:
        inner.watch(between)
        judged = critic([between, labels])
    slopes = inner.gradient(judged, between)
    return tf.reduce_mean(tf.square(1.0 - tf.sqrt(tf.reduce_sum(tf.square(slopes), axis=1))))


@tf.function
def critic_step(real, fake, labels):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(critic([fake, labels])) - tf.reduce_mean(critic([real, labels])) \
            + 10.0 * gradient_penalty(real, fake, labels)
    grads = tape.gradient(loss, critic.trainable_variables)
    optimizer.apply_gradients(zip(grads, critic.trainable_variables))
    return loss


labels = tf.one_hot(tf.random.uniform((32,), 0, 3, dtype=tf.int32), 3)
for _ in range(3):
    print(float(critic_step(tf.random.normal((32, 12)) + 1.0, tf.random.normal((32, 12)), labels)))
