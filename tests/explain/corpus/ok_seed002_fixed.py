# source: shared/seeds/002 ("GradientTape with Keras returns 0"), the answers' fixes
# expect: clean
import keras
import numpy as np
import tensorflow as tf

input_ = keras.Input(shape=(28, 28))
flat = keras.layers.Flatten()(input_)
output = keras.layers.Dense(10, activation="softmax")(flat)
model = keras.Model(input_, output)
inp = tf.Variable(np.random.random((1, 28, 28)), dtype=tf.float32, name="input")
target = tf.constant([[1, 0, 0, 0, 0, 0, 0, 0, 0, 0]], dtype=tf.float32)
with tf.GradientTape(persistent=True) as g:
    g.watch(inp)
    result = model(inp, training=False)
    loss = keras.losses.categorical_crossentropy(target, result)
    first = result[:, 0]
print(tf.reduce_max(tf.abs(g.gradient(loss, inp))))
print(tf.reduce_max(tf.abs(g.gradient(first, inp))))
print(g.jacobian(result, inp).shape)
