# source: https://github.com/tensorflow/tensorflow/issues/31519
# expect: cause=unwatched line=6
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as g:
    with tf.GradientTape() as gg:
        gg.watch(x)
        y = x * x
    dy_dx = gg.gradient(y, x)
d2y_dx2 = g.gradient(dy_dx, x)
print(dy_dx, d2y_dx2)
