# source: https://github.com/tensorflow/tensorflow/issues/2295 (nonfinite_pow_gamma_zero.py compiled with XLA: clamped to [0, 1], then tf.pow(y, 1/2.4) for a gamma curve, in a @tf.function(jit_compile=True) step: inf, then NaN gradients at the black pixels)
# expect: cause=non-finite line=18
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
image = tf.random.uniform((2, 8, 8, 3))
image = tf.where(image < 0.2, 0.0, image)  # the black pixels are exactly 0
target = tf.random.uniform((2, 8, 8, 3))
gain = tf.Variable(1.2)  # the exposure the model learns
optimizer = keras.optimizers.SGD(0.01)


@tf.function(jit_compile=True)
def train_step(image, target):
    with tf.GradientTape() as tape:
        linear = tf.clip_by_value(image * gain, 0.0, 1.0)
        srgb = tf.pow(linear, 1.0 / 2.4)  # d/dy y^(1/2.4) is inf at y = 0, and a black pixel times inf is NaN
        loss = tf.reduce_mean(tf.square(srgb - target))
    grads = tape.gradient(loss, [gain])
    optimizer.apply_gradients(zip(grads, [gain]))
    return loss


for step in range(3):  # a training loop
    train_step(image, target)
print(gain.numpy())
