# source: https://github.com/tensorflow/tensorflow/issues/43258
# expect: cause=not-used line=12
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
x = tf.random.normal((4, 3))
y_true = tf.random.normal((4, 2))


def my_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - tf.reduce_mean(y_true)))


with tf.GradientTape() as tape:
    y_pred = model(x)
    loss = my_loss(y_true, y_pred)
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
