# source: https://github.com/tensorflow/tensorflow/issues/38453 (a loop over a tf.data dataset inside a tf.function: the gradient is None)
# expect: cause=state-breaks-path line=10
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices([2.0, 3.0])


@tf.function
def fun(x):
    for data in dataset:
        x = x * data
    return x


a = tf.constant(1.0)
with tf.GradientTape() as tape:
    tape.watch(a)
    c = fun(a)
print(tape.gradient(c, a))
