# source: https://www.tensorflow.org/versions/r2.4/api_docs/python/tf/UnconnectedGradients (a parameter left out of the loss on purpose: ZERO instead of None)
# expect: clean
import tensorflow as tf

w = tf.Variable([[0.5], [-0.3]])
b = tf.Variable([0.1])
extra = tf.Variable([1.0])  # kept for a later experiment: this loss leaves it out on purpose
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
grads = tape.gradient(loss, [w, b, extra], unconnected_gradients=tf.UnconnectedGradients.ZERO)
print([g.numpy().ravel() for g in grads])
