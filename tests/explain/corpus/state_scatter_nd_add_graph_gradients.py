# source: https://github.com/tensorflow/tensorflow/issues/12473 (TF1 graph: the prediction written into a variable with scatter_nd_add, then tf.gradients of the result for the weights: "the gradient of scatter_nd_add always return None")
# expect: cause=state-breaks-path line=19
import numpy as np
import tensorflow as tf

with tf.Graph().as_default():
    x = tf.Variable(np.random.random((2, 4)).astype('float32'))
    indice = tf.Variable(np.random.randint(0, 2, size=(2, 4, 2)), dtype=tf.int32)

    # tf Graph Input
    X = tf.compat.v1.placeholder("float")

    # Set model weights
    W = tf.Variable(np.random.random((2, 4)).astype('float32'), name="weight")
    b = tf.Variable(np.random.random((2, 1)).astype('float32'), name="bias")

    # Construct a linear model
    pred = tf.add(tf.multiply(X, W), b)
    y = tf.compat.v1.scatter_nd_add(x, indice, pred)

    grad = tf.gradients(y, [W, b])
print(grad)
