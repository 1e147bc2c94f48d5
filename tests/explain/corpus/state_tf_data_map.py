# source: https://github.com/tensorflow/tensorflow/issues/38751 (answer: stackoverflow 50784337, gradients of ops in Dataset.map)
# expect: cause=state-breaks-path line=8
import tensorflow as tf

scale = tf.Variable(2.0)
features = tf.random.normal((8, 3))
with tf.GradientTape() as tape:
    ds = tf.data.Dataset.from_tensor_slices(features * scale).batch(4)
    loss = 0.0
    for batch in ds:
        loss += tf.reduce_sum(batch)
print(tape.gradient(loss, scale))
