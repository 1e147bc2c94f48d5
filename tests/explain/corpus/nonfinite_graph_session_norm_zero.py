# source: https://github.com/tensorflow/tensorflow/issues/12071 (TF1: tf.norm of rows fed through a placeholder, tf.gradients run in a Session: the gradient of the all-zero row is NaN, the Euclidean norm's sqrt taken at 0)
# expect: cause=non-finite line=11
import numpy as np
import tensorflow as tf

rows = np.array([[1.0], [0.0], [1e-16], [2.0]], dtype=np.float32)

graph = tf.Graph()
with graph.as_default():
    X = tf.compat.v1.placeholder(tf.float32, shape=(4, None))
    Z = tf.norm(X, ord="euclidean", axis=1, name="logit")
    var_grad = tf.gradients(Z, [X])

with tf.compat.v1.Session(graph=graph) as sess:
    norms, (grad,) = sess.run((Z, var_grad), feed_dict={X: rows})
print(norms, grad.ravel())
