# source: https://github.com/tensorflow/tensorflow/pull/38467 (ok_safe_where.py in a TF1 graph trained with minimize in a Session: a second where keeps the divisor away from 0, so the branch not taken has a finite gradient)
# expect: clean
import tensorflow as tf

graph = tf.Graph()
with graph.as_default():
    W1 = tf.Variable([2.0])
    W2 = tf.Variable([0.0], trainable=False)  # a divisor given, not trained
    target = tf.constant([1.0])
    zero = tf.equal(W2, 0.0)
    out = tf.where(zero, W1, W1 / tf.where(zero, tf.ones_like(W2), W2))
    loss = tf.reduce_sum(tf.square(out - target))
    train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
    init = tf.compat.v1.global_variables_initializer()

with tf.compat.v1.Session(graph=graph) as sess:
    sess.run(init)
    for step in range(20):
        _, value = sess.run([train, loss])
    print("loss", value, "W1", sess.run(W1))
