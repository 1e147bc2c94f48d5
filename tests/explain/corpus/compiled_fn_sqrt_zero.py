# source: https://github.com/tensorflow/tensorflow/issues/4914 (nonfinite_sqrt_zero.py in a @tf.function loop)
# expect: cause=non-finite line=14
# how: zero
import tensorflow as tf

x = tf.Variable([1.0, 2.0])
c = tf.Variable([0.0, 1.0])
optimizer = tf.keras.optimizers.SGD(0.01)


@tf.function
def step():
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sqrt(c * x))
    grads = tape.gradient(y, [c])
    optimizer.apply_gradients(zip(grads, [c]))
    return grads[0]


for _ in range(4):
    print(step())
