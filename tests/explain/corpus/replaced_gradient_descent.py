# source: https://www.tensorflow.org/guide/autodiff (Getting a gradient of None: replaced a variable with a tensor)
# expect: cause=variable-replaced line=11
import tensorflow as tf

x = tf.Variable(2.0)
for epoch in range(2):
    with tf.GradientTape() as tape:
        y = x + 1
    dy_dx = tape.gradient(y, x)
    print(type(x).__name__, dy_dx)
    x = x + 1
