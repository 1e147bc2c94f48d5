# source: https://github.com/tensorflow/tensorflow/issues/36306 (state_tf_data_reduce.py, the loss summed by Dataset.reduce in a tf.function step)
# expect: cause=state-breaks-path line=13
import tensorflow as tf

data = tf.range(10, dtype=tf.float32)
ds = tf.data.Dataset.from_tensor_slices(data)
u = tf.Variable(1.0)


@tf.function
def step():
    with tf.GradientTape() as g:
        loss = ds.reduce(tf.constant(0.0), lambda total, y: total + (y - u) ** 2)
    return g.gradient(loss, u)


for _ in range(2):
    print(step())
