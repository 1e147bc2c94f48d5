# source: https://github.com/tensorflow/tensorflow/issues/31945 (a custom_gradient function that reads a variable, its grad_fn without variables=)
# expect: cause=custom-gradient-signature line=12
import tensorflow as tf

scale = tf.Variable(2.0, name="outside")


@tf.custom_gradient
def scaled_clip(x):
    y = tf.clip_by_value(x * scale, -1.0, 1.0)

    def grad(dy):  # TensorFlow refuses it: the function reads `scale`, so grad needs variables=None
        return dy * scale

    return y, grad


x = tf.constant([0.1, 0.7, -0.3])
with tf.GradientTape() as tape:
    tape.watch(x)
    out = tf.reduce_sum(scaled_clip(x))
print(tape.gradient(out, [x, scale]))
