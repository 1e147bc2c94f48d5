# source: https://github.com/tensorflow/tensorflow/issues/36596 (comment: predictions converted to numpy arrays)
# expect: cause=leaves-tensorflow line=13
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
x = tf.random.normal((6, 4))
y = np.random.rand(6, 3).astype("float32")


def custom_loss(y_true, y_pred):
    predictions = np.array(y_pred)
    return tf.reduce_mean(tf.square(tf.convert_to_tensor(predictions) - y_true))


with tf.GradientTape() as tape:
    loss = custom_loss(y, model(x))
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
