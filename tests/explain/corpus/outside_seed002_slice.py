# source: shared/seeds/002 ("GradientTape with Keras returns 0"), answer 2: index inside the tape
# expect: cause=outside-tape line=16
import keras
import numpy as np
import tensorflow as tf

np.random.seed(0)
input_ = keras.Input(shape=(28, 28))
flat = keras.layers.Flatten()(input_)
output = keras.layers.Dense(10, activation="softmax")(flat)
model = keras.Model(input_, output)
inp = tf.Variable(np.random.random((1, 28, 28)), dtype=tf.float32, name="input")
with tf.GradientTape(persistent=True) as g:
    g.watch(inp)
    result = model(inp, training=False)
print(tf.reduce_max(tf.abs(g.gradient(result[:, 0], inp))))
