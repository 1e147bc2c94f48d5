# source: https://github.com/tensorflow/tensorflow/issues/54417 (tanh outputs at ±1; here the fit is exact, a true minimum)
# expect: cause=not-known line=11
import tensorflow as tf

w = tf.Variable([[8.0], [-8.0]])
x = tf.constant([[3.0, 0.0], [0.0, 3.0], [2.5, 0.0]])
y = tf.constant([[1.0], [-1.0], [1.0]])  # the labels the saturated outputs already reach
with tf.GradientTape() as tape:
    out = tf.tanh(tf.matmul(x, w))
    loss = tf.reduce_mean(tf.square(out - y))
grad = tape.gradient(loss, w)
print(float(loss), grad.numpy().ravel())
