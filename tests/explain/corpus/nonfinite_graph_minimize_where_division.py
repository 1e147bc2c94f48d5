# source: https://github.com/tensorflow/tensorflow/issues/20091 (TF1: a tf.where whose other branch divides by a weight that is 0, trained with minimize in a Session: the branch not taken still makes the gradient NaN, and the weights with it)
# expect: cause=non-finite line=10
import tensorflow as tf

graph = tf.Graph()
with graph.as_default():
    W1 = tf.Variable([2.0])
    W2 = tf.Variable([0.0], trainable=False)  # a divisor given, not trained
    target = tf.constant([1.0])
    out = tf.where(tf.equal(W2, 0.0), W1, W1 / W2)
    loss = tf.reduce_sum(tf.square(out - target))
    train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
    init = tf.compat.v1.global_variables_initializer()

with tf.compat.v1.Session(graph=graph) as sess:
    sess.run(init)
    for step in range(3):
        _, value = sess.run([train, loss])
    print("loss", value, "W1", sess.run(W1))
