# source: https://www.tensorflow.org/api_docs/python/tf/GradientTape
# expect: clean
import tensorflow as tf

x = tf.constant(5.0)
with tf.GradientTape() as g:
    g.watch(x)
    with tf.GradientTape() as gg:
        gg.watch(x)
        y = x * x
    dy_dx = gg.gradient(y, x)
d2y_dx2 = g.gradient(dy_dx, x)
print(dy_dx, d2y_dx2)
