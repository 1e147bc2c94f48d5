# source: https://github.com/tensorflow/tensorflow/issues/31264
# expect: cause=unwatched line=9
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((28, 28)), keras.layers.Flatten(), keras.layers.Dense(10)])
loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
images = tf.convert_to_tensor(np.random.rand(4, 28, 28).astype("float32"))
labels = tf.constant([1, 2, 3, 4])


def train_step(images, labels):
    with tf.GradientTape() as tape:
        predictions = model(images)
        loss = loss_object(labels, predictions)
    print(tape.gradient(loss, images))


train_step(images, labels)
