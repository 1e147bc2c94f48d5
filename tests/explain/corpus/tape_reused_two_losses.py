# source: https://github.com/tensorflow/tensorflow/issues/31265
# expect: cause=tape-reused line=9
import keras
import tensorflow as tf

encoder = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
decoder = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4)])
data = tf.random.normal((8, 4))
with tf.GradientTape() as tape:
    code = encoder(data)
    rec = decoder(code)
    loss_rec = tf.reduce_mean(tf.square(rec - data))
    loss_code = tf.reduce_mean(tf.square(code))
grads_dec = tape.gradient(loss_rec, decoder.trainable_variables)
grads_enc = tape.gradient(loss_rec + loss_code, encoder.trainable_variables)
