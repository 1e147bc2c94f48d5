# source: https://github.com/mc6666/MyNeuralNetwork/issues/2 (`loss += …` on a tf.Variable in a style-transfer loss)
# expect: cause=variable-replaced line=11
import numpy as np
import tensorflow as tf

image = tf.Variable(np.random.rand(1, 8, 8, 3).astype("float32"))
content = tf.constant(np.random.rand(1, 8, 8, 3).astype("float32"))
style = tf.constant(np.random.rand(1, 8, 8, 3).astype("float32"))
with tf.GradientTape() as tape:
    loss = tf.Variable(0.0)
    loss += tf.reduce_mean((image - content) ** 2)
    loss += 0.1 * (tf.reduce_mean(image ** 2) - tf.reduce_mean(style ** 2)) ** 2
print(tape.gradient(loss, image))
