# source: https://github.com/tensorflow/tensorflow/issues/29781 ("[TF 2.0] tf.hessians": tf.hessians is tf.gradients twice, and raises in eager mode)
# expect: cause=tf-gradients-eager line=10
import tensorflow as tf

a = tf.Variable([0.5, -1.0])
b = tf.Variable([1.5, 2.0])
with tf.GradientTape() as tape:
    energy = tf.reduce_sum(a ** 2 * b ** 3 + a * b)
try:
    curvature = tf.hessians(energy, [a, b])
except RuntimeError as error:
    print("no curvature:", error)
