# source: https://github.com/tensorflow/tensorflow/issues/36306 (a loss summed with Dataset.reduce: its gradient is None)
# expect: cause=state-breaks-path line=9
import tensorflow as tf

data = tf.range(10, dtype=tf.float32)
ds = tf.data.Dataset.from_tensor_slices(data)
u = tf.Variable(1.0)
with tf.GradientTape() as g:
    loss = ds.reduce(tf.constant(0.0), lambda total, y: total + (y - u) ** 2)
print(g.gradient(loss, u))
