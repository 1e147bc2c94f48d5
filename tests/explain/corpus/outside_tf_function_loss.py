# source: https://github.com/krasserm/super-resolution/issues/41
# expect: cause=outside-tape line=16
import keras
import tensorflow as tf

generator = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(3, 3, padding="same")])
optimizer = keras.optimizers.Adam(1e-4)
lr = tf.random.uniform((2, 8, 8, 3))
hr = tf.random.uniform((2, 8, 8, 3))


@tf.function
def train_step(lr, hr):
    with tf.GradientTape() as tape:
        sr = generator(lr, training=True)
    loss_value = tf.reduce_mean(tf.abs(hr - sr))
    gradients = tape.gradient(loss_value, generator.trainable_variables)
    return gradients


print([g is None for g in train_step(lr, hr)])
