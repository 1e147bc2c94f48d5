# source: https://e-com-net.com/article/1277883359724322816.htm (the article's fix: tape.watch the constants first, and the tape traces every layer computed from them)
# expect: clean
import tensorflow as tf

x = tf.constant(1.)
w1 = tf.constant(2.)
b1 = tf.constant(1.)
w2 = tf.constant(2.)
b2 = tf.constant(1.)

with tf.GradientTape(persistent=True) as tape:
    tape.watch([w1, b1, w2, b2])
    y1 = x * w1 + b1
    y2 = y1 * w2 + b2

print("dy2_dy1:", tape.gradient(y2, [y1])[0])
print("dy2_dw1:", tape.gradient(y2, [w1])[0])
