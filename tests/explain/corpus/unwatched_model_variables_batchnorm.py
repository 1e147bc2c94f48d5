# source: https://github.com/tensorflow/tensorflow/issues/26404
# expect: cause=unwatched line=6
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8), keras.layers.BatchNormalization(),
                          keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
x = tf.random.normal((16, 6))
label = tf.random.normal((16, 1))
with tf.GradientTape() as tape:
    prediction = model(x, training=True)
    loss = tf.reduce_mean(tf.square(prediction - label))
grads = tape.gradient(loss, model.variables)
print([v.name for v, g in zip(model.variables, grads) if g is None])
