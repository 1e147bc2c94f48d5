# source: https://www.tensorflow.org/api_docs/python/tf/GradientTape
# expect: clean
import tensorflow as tf


def second_derivative(f, x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            value = f(x)
        slope = inner.gradient(value, x)
    return slope, outer.gradient(slope, x)


print(second_derivative(lambda t: t ** 3, tf.constant(5.0)))
