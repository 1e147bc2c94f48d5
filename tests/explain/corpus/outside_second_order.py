# source: https://github.com/tensorflow/tensorflow/issues/41510
# expect: cause=outside-tape line=11
import tensorflow as tf

y = tf.constant(2.0)
v = tf.Variable(3.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(y)
    tape.watch(v)
    w = y * y * v
grads = tape.gradient(w, y)
dgradsdv = tape.gradient(grads, v)
print(grads, dgradsdv)
