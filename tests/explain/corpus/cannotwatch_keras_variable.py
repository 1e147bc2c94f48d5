# source: https://github.com/keras-team/keras/issues/19874
# expect: cause=cannot-watch line=11
import keras
import tensorflow as tf

layer = keras.layers.Dense(3)
r = tf.random.normal((2, 1))
layer(r)
try:
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(layer.kernel)
        out = layer(r)
except ValueError as error:
    print("ValueError:", str(error)[:70])
