# source: https://github.com/tensorflow/tensorflow/issues/35585
# expect: cause=dead-relu line=8
import keras
import tensorflow as tf

model = keras.Sequential([
    keras.Input((6,)),
    keras.layers.Dense(8, activation="relu", bias_initializer=keras.initializers.Constant(-50.0)),
    keras.layers.Dense(1)])
x = tf.random.uniform((16, 6))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - 1.0))
grads = tape.gradient(loss, model.trainable_variables)
print([float(tf.reduce_max(tf.abs(g))) for g in grads])
