# source: https://www.tensorflow.org/guide/autodiff (Getting a gradient of None: use assign)
# expect: clean
import tensorflow as tf

x = tf.Variable(2.0)
for epoch in range(3):
    with tf.GradientTape() as tape:
        y = x ** 2 + 1
    dy_dx = tape.gradient(y, x)
    x.assign_sub(0.1 * dy_dx)
print(x.numpy())
