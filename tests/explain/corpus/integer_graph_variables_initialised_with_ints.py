# source: https://github.com/tensorflow/tensorflow/issues/27378 (TF1 graph: tf.gradients of a loss for variables made from Python integers: "your variables are of integer types (because you initialize them with integers)")
# expect: cause=integer-path line=7
import tensorflow as tf

with tf.Graph().as_default():
    x = tf.compat.v1.placeholder(tf.int32, shape=[None])
    w = tf.Variable(2, name="w")
    b = tf.Variable(1, name="b")
    y = tf.compat.v1.placeholder(tf.int32, shape=[None])
    pred = w * x + b
    loss = tf.reduce_sum(tf.square(pred - y))
    grads = tf.gradients(loss, [w, b])
print(grads)
