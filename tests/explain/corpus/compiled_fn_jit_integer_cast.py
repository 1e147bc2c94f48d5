# source: https://github.com/tensorflow/tensorflow/issues/1511 (integer_cast_quantize.py in a jit_compile=True step)
# expect: cause=integer-path line=13
import tensorflow as tf

w = tf.Variable(tf.random.uniform((4, 4)))
image = tf.random.uniform((1, 4, 4))


@tf.function(jit_compile=True)
def step(image):
    with tf.GradientTape() as tape:
        out = image * w
        pixels = tf.cast(out * 255.0, tf.uint8)
        loss = tf.reduce_mean(tf.cast(pixels, tf.float32))
    return tape.gradient(loss, w)


for _ in range(3):
    print(step(image))
