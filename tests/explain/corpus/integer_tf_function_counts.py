# source: https://markaicode.com/custom-gradients-non-differentiable-losses
# expect: cause=integer-path line=13
import tensorflow as tf

w = tf.Variable(tf.random.normal((3, 1)))
x = tf.random.normal((16, 3))


@tf.function
def step():
    with tf.GradientTape() as tape:
        scores = tf.matmul(x, w)
        votes = tf.cast(tf.nn.relu(scores) * 10.0, tf.int64)
        loss = tf.cast(tf.reduce_sum(votes), tf.float32)
    return tape.gradient(loss, w)


print(step())
