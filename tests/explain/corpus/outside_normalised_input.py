# source: https://github.com/tensorflow/tensorflow/issues/40652
# expect: cause=outside-tape line=10
import keras
import tensorflow as tf

v = tf.random.normal((2, 5, 3))
lstm = keras.layers.LSTM(8)
dense = keras.layers.Dense(4)
r = tf.random.uniform(shape=tf.shape(v), minval=0.001, maxval=0.005)
r_noisy = tf.add(v, r)
with tf.GradientTape() as tape:
    tape.watch(r)
    logits = dense(lstm(r_noisy))
    kl = tf.reduce_sum(tf.nn.softmax(logits) * logits)
grad = tape.gradient(kl, r)
print(grad)
