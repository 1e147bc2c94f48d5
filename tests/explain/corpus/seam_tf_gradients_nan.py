# source: https://github.com/tensorflow/tensorflow/issues/15403 (tf.gradients inside graph code, TF1 style kept in a tf.function; here its gradient is NaN: a norm at 0)
# expect: cause=non-finite line=11
import tensorflow as tf

a = tf.Variable([1.0, 4.0])
target = tf.constant([1.0, 4.0])


@tf.function
def graph_gradients():
    distance = tf.norm(a - target)  # a already sits on the target: the norm's slope at 0 is 0/0
    loss = tf.square(distance)
    # graph-only tf.gradients: the NaN is born here
    return tf.gradients(distance + loss, a)[0]


print(graph_gradients().numpy())
