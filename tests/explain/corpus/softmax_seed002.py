# source: shared/seeds/002 ("GradientTape with Keras returns 0"), the question's program
# expect: cause=softmax-sum line=16
import keras
import numpy as np
import tensorflow as tf

np.random.seed(0)
input_ = keras.Input(shape=(28, 28))
flat = keras.layers.Flatten()(input_)
output = keras.layers.Dense(10, activation="softmax")(flat)
model = keras.Model(input_, output)
model.compile(loss="categorical_crossentropy", optimizer="sgd")
inp = tf.Variable(np.random.random((1, 28, 28)), dtype=tf.float32, name="input")
with tf.GradientTape(persistent=True) as g:
    g.watch(inp)
    result = model(inp, training=False)
print(tf.reduce_max(tf.abs(g.gradient(result, inp))))
