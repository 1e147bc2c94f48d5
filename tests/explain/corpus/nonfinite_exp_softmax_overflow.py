# source: https://stackoverflow.com/questions/61567597/how-is-log-softmax-implemented-to-compute-its-value-and-gradient-with-better
# expect: cause=non-finite line=11
# how: overflow
import tensorflow as tf

w = tf.Variable([[50.0, 100.0, 120.0]])
x = tf.constant([[1.0], [1.0]])
labels = tf.constant([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
with tf.GradientTape() as tape:
    logits = tf.matmul(x, w)
    probs = tf.exp(logits) / tf.reduce_sum(tf.exp(logits), axis=1, keepdims=True)
    loss = -tf.reduce_mean(tf.reduce_sum(labels * tf.math.log(probs), axis=1))
print(loss, tape.gradient(loss, w))
