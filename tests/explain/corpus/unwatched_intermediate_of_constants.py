# source: https://e-com-net.com/article/1277883359724322816.htm (a tensor computed under the tape from constants the tape never watched: the gradient of the next layer's output for it is None, although that output is computed from it)
# expect: cause=unwatched line=12
import tensorflow as tf

x = tf.constant(1.)
w1 = tf.constant(2.)
b1 = tf.constant(1.)
w2 = tf.constant(2.)
b2 = tf.constant(1.)

with tf.GradientTape(persistent=True) as tape:
    y1 = x * w1 + b1
    y2 = y1 * w2 + b2

print("dy2_dy1:", tape.gradient(y2, [y1])[0])
