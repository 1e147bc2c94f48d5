# source: https://github.com/tensorflow/tensorflow/issues/21756 (the fixed program: grad_fn takes variables=None and returns one gradient per variable)
# expect: clean
import tensorflow as tf

scale = tf.Variable(2.0)


@tf.custom_gradient
def scaled(x):
    y = x * scale

    def grad(dy, variables=None):
        return dy * scale, [tf.reduce_sum(dy * x) for _ in variables]

    return y, grad


x = tf.constant([0.1, 0.7, -0.3])
with tf.GradientTape() as tape:
    tape.watch(x)
    out = tf.reduce_sum(scaled(x))
print(tape.gradient(out, [x, scale]))
