# source: https://github.com/tensorflow/tensorflow/issues/127226 (keras.ops sinc at an argument of exactly zero: the value is 1, the derivative NaN instead of 0)
# expect: cause=non-finite line=9
import keras
import tensorflow as tf

t = tf.Variable(-0.5)
with tf.GradientTape() as tape:
    # sinc(2t + 1) at t = -0.5: sinc's where() still differentiates its 0/0 branch
    value = keras.ops.sinc(2.0 * t + 1.0)
print(value.numpy(), tape.gradient(value, t).numpy())
