# source: https://github.com/tensorflow/tensorflow/issues/36596 (gradient with respect to the input: "I was converting the loss and the predictions to numpy")
# expect: cause=leaves-tensorflow line=13
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="softmax")])
image = tf.random.uniform((1, 6))
label = np.array([[0.0, 1.0, 0.0]], dtype="float32")


def custom_loss(y_true, y_pred):
    y_pred = y_pred.numpy()  # the loss worked on numpy copies
    return tf.constant(-np.sum(y_true * np.log(y_pred)))


with tf.GradientTape() as tape:
    loss = custom_loss(label, model(image))
print(tape.gradient(loss, image))
