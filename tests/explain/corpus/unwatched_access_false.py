# source: https://github.com/tensorflow/tensorflow/issues/38751
# expect: cause=unwatched line=8
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4), keras.layers.Dense(1)])
x = tf.random.normal((2, 8))
with tf.GradientTape(watch_accessed_variables=False) as tape:
    out = model(x)
    loss = tf.reduce_mean(out)
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
