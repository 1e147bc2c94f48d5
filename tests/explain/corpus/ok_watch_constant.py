# source: https://www.tensorflow.org/guide/autodiff
# expect: clean
import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as g:
    g.watch(x)
    y = x * x
print(g.gradient(y, x))
