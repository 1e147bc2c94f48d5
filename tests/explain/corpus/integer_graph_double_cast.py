# source: https://github.com/tensorflow/tensorflow/issues/897 (TF1 graph: a value cast to int32 and back to float32 inside the expression, "the gradient of tf.cast(tf.cast(vif, tf.int32), tf.float32) is also None")
# expect: cause=integer-path line=10
import numpy as np
import tensorflow as tf

f = np.array([3.8], dtype='float32')
with tf.Graph().as_default():
    vif = tf.compat.v1.placeholder(tf.float32, shape=[1])
    scale = tf.Variable([2.0], name="scale")
    out = tf.cast(tf.cast(vif * scale, tf.int32), tf.float32)
    grad = tf.gradients(tf.reduce_sum(out), scale)
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        print(grad, sess.run(out, feed_dict={vif: f}))
