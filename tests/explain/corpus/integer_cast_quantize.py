# source: https://github.com/tensorflow/tensorflow/issues/1511
# expect: cause=integer-path line=9
import tensorflow as tf

w = tf.Variable(tf.random.uniform((4, 4)))
image = tf.random.uniform((1, 4, 4))
with tf.GradientTape() as tape:
    out = image * w
    pixels = tf.cast(out * 255.0, tf.uint8)
    loss = tf.reduce_mean(tf.cast(pixels, tf.float32))
print(tape.gradient(loss, w))
