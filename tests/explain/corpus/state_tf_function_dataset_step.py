# source: https://github.com/tensorflow/tensorflow/issues/41594 (tf.function breaks the gradient tape when looping over datasets)
# expect: cause=state-breaks-path line=13
import tensorflow as tf

data = tf.data.Dataset.from_tensor_slices(tf.random.normal((6,), dtype=tf.double)).batch(2)
par = tf.Variable(0.5, dtype=tf.double)


@tf.function
def training_step(data, par):
    loss = tf.constant(0, dtype=tf.double)
    with tf.GradientTape() as tape:
        for d in data:
            loss += tf.reduce_sum(tf.square(d - par))
    return tape.gradient(loss, par)


print(training_step(data, par))
