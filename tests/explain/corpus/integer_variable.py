# source: https://www.tensorflow.org/guide/autodiff (Getting a gradient of None: integer variables)
# expect: cause=integer-path line=5
import tensorflow as tf

x = tf.Variable(2)
with tf.GradientTape() as tape:
    y = x * x
print(tape.gradient(y, x))
