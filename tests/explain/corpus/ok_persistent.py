# source: https://www.tensorflow.org/api_docs/python/tf/GradientTape
# expect: clean
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape(persistent=True) as g:
    g.watch(x)
    y = x * x
    z = y * y
dz_dx = g.gradient(z, x)
dy_dx = g.gradient(y, x)
del g
print(dz_dx, dy_dx)
