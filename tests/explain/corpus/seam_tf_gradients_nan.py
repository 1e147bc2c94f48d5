# source: https://github.com/tensorflow/tensorflow/issues/15403 (tf.gradients inside graph code, TF1 style kept in a tf.function; here its gradient is NaN: a sqrt at 0)
# expect: cause=not-known line=14
import tensorflow as tf

a = tf.Variable([0.0, 4.0])


@tf.function
def graph_gradients():
    b = tf.sqrt(a)  # sqrt at 0: an infinite slope
    total = tf.reduce_sum(b)
    # graph-only tf.gradients: the NaN is born here
    return tf.gradients(total * 0.0 + tf.reduce_sum(b * a), a)[0]


print(graph_gradients().numpy())
