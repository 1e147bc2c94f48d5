# source: https://github.com/tensorflow/tensorflow/issues/36306 (the answer: iterate in Python, keep the sum in the tape)
# expect: clean
import tensorflow as tf

data = tf.range(10, dtype=tf.float32)
ds = tf.data.Dataset.from_tensor_slices(data)
u = tf.Variable(1.0)
count = ds.reduce(tf.constant(0, tf.int64), lambda n, _: n + 1)  # a count: no gradient wanted
with tf.GradientTape() as g:
    loss = tf.add_n([(y - u) ** 2 for y in ds]) / tf.cast(count, tf.float32)
print(g.gradient(loss, u))
