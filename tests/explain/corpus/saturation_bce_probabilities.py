# source: https://github.com/tensorflow/tensorflow/issues/35585
# expect: cause=saturation line=16
import keras
import tensorflow as tf

logits_layer = keras.layers.Dense(1, kernel_initializer=keras.initializers.Constant(10.0))
x = tf.ones((8, 4)) * 3.0
y = tf.zeros((8, 1))


def binary_crossentropy(y_true, p):
    return -tf.reduce_mean(y_true * tf.math.log(p + 1e-7) + (1 - y_true) * tf.math.log(1 - p + 1e-7))


with tf.GradientTape() as tape:
    probabilities = tf.sigmoid(logits_layer(x))
    loss = binary_crossentropy(y, probabilities)
grads = tape.gradient(loss, logits_layer.trainable_variables)
print([float(tf.reduce_max(tf.abs(g))) for g in grads])
