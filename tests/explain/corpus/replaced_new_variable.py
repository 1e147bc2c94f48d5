# source: https://github.com/tensorflow/tensorflow/issues/34335
# expect: cause=variable-replaced line=10
import keras
import tensorflow as tf

layer = keras.layers.Dense(3)
x = tf.random.normal((4, 2))
layer(x)
kernel = layer.kernel
kernel = tf.Variable(kernel * 0.5)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x))
print(tape.gradient(loss, kernel))
