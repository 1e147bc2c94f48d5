# source: https://github.com/tensorflow/tensorflow/issues/34478 (tf.while_loop and TensorArray: "it return None when compute gradients"; here the loop built with back_prop=False inside a @tf.function)
# expect: cause=stop-gradient line=13
import tensorflow as tf

w = tf.Variable([[0.5, -0.2], [0.1, 0.3]])
x0 = tf.constant([[1.0, 2.0]])


@tf.function
def rollout_loss():
    with tf.GradientTape() as tape:
        # back_prop=False: TensorFlow stops the gradient at the loop's outputs (eagerly the flag is ignored)
        _, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.tanh(tf.matmul(x, w))),
                             (tf.constant(0), x0), back_prop=False)
        loss = tf.reduce_sum(tf.square(x))
    return tape.gradient(loss, w)


print(rollout_loss())
