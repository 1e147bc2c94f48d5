# source: https://github.com/tensorflow/tensorflow/issues/31265
# expect: cause=outside-tape line=12
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
data = tf.random.normal((16, 3))
target = tf.random.normal((16, 1))
with tf.GradientTape() as tape:
    prediction = model(data)
loss = tf.reduce_mean(tf.square(prediction - target))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
