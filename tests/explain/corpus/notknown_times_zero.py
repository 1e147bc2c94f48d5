# source: https://taourl.com/read-1903316.html (a variable multiplied by zero inside the tape: "Gradient will be zero")
# expect: cause=not-known line=10
import tensorflow as tf

x = tf.Variable([2.0, -1.0, 0.5])
scale = 0.0  # meant to be tuned later: the loss ignores x until it is
with tf.GradientTape() as tape:
    y = tf.reduce_sum(x * scale)
# all zero: y does not move when x does, whatever x is
grad = tape.gradient(y, x)
print(grad.numpy())
