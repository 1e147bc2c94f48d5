# source: https://github.com/tensorflow/tensorflow/issues/2295 (clamped to [0, 1], then tf.pow(y, 1/2.4) for a gamma curve: inf, then NaN gradients at 0; here a learned exposure gain on an image with black pixels)
# expect: cause=non-finite line=16
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
image = tf.random.uniform((2, 8, 8, 3))
image = tf.where(image < 0.2, 0.0, image)  # the black pixels are exactly 0
target = tf.random.uniform((2, 8, 8, 3))
gain = tf.Variable(1.2)  # the exposure the model learns
optimizer = keras.optimizers.SGD(0.01)

with tf.GradientTape() as tape:
    linear = tf.clip_by_value(image * gain, 0.0, 1.0)
    gamma = tf.constant(1.0 / 2.4, tf.float32)
    srgb = tf.pow(linear, gamma)  # d/dy y^(1/2.4) is inf at y = 0, and a black pixel times inf is NaN
    loss = tf.reduce_mean(tf.square(srgb - target))
grads = tape.gradient(loss, [gain])
optimizer.apply_gradients(zip(grads, [gain]))
print(gain.numpy())
