# source: https://www.tensorflow.org/guide/autodiff (Zeros instead of None)
# expect: clean
import tensorflow as tf

x = tf.Variable([2.0, 2.0])
y = tf.Variable(3.0)
with tf.GradientTape() as tape:
    z = y ** 2
print(tape.gradient(z, y, unconnected_gradients=tf.UnconnectedGradients.ZERO))
