# source: https://github.com/keras-team/keras/issues/19155
# expect: cause=cannot-watch line=12
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(16, activation="tanh"), keras.layers.Dense(1)])
x = tf.random.normal((8, 3))
kernel = model.layers[0].kernel
try:
    # only this variable is to be watched, so that the tape does not record the whole model
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(kernel)
        y = tf.reduce_sum(model(x))
    print(tape.gradient(y, kernel))
except ValueError as error:
    print("ValueError:", str(error)[:60])
