# source: https://github.com/tensorflow/tensorflow/issues/20091 (nonfinite_where_division.py as the issue wrote it, with tf.gradients in graph code, kept in a tf.function: NaN although the dividing branch is not taken)
# expect: cause=non-finite line=12
import tensorflow as tf

W1 = tf.Variable([2.0])
W2 = tf.Variable([0.0])


@tf.function
def graph_step():
    # use W1 / W2 only where W2 is not 0
    y = tf.where(tf.equal(W2, 0.0), W1, W1 / W2)
    return tf.gradients(y, [W1, W2])


print([g.numpy() for g in graph_step()])
