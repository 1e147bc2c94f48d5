# source: https://www.iiask.com/34l59058.html (tf.sqrt of a negative number is NaN; here a variance as E[x²] − E[x]²)
# expect: cause=non-finite line=11
# how: domain
import tensorflow as tf

w = tf.Variable([[1.0], [1.0]])
x = tf.constant([[1000.0, 0.1]] * 6)  # a batch whose feature does not vary: E[h²] − E[h]² rounds below 0
with tf.GradientTape() as tape:
    h = tf.matmul(x, w)
    variance = tf.reduce_mean(h ** 2) - tf.reduce_mean(h) ** 2
    loss = tf.sqrt(variance)
print(variance, loss, tape.gradient(loss, w))
