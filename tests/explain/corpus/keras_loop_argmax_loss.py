# source: https://github.com/tensorflow/tensorflow/issues/28836
# expect: cause=no-gradient-op line=20
# expect-keras: cause=no-gradient-op line=20
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(4, 3, activation="relu"),
                          keras.layers.Flatten(), keras.layers.Dense(10)])
optimizer = keras.optimizers.Adam(1e-3)
cross_entropy = keras.losses.SparseCategoricalCrossentropy()
images = np.random.rand(16, 8, 8, 1).astype("float32")
labels = np.random.randint(0, 10, size=(16,))


def train_step(images, labels):
    with tf.GradientTape() as cnn_tape:
        logits = model(images)
        # the loss of the predicted class index, not of the logits
        loss = tf.reduce_mean(tf.square(tf.cast(labels, tf.float32) - tf.cast(tf.argmax(logits, axis=1), tf.float32)))
    gradient_of_cnn = cnn_tape.gradient(loss, model.trainable_variables)
    cnn_optimizer_step(gradient_of_cnn)


def cnn_optimizer_step(gradients):
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))


try:
    train_step(images, labels)
except ValueError as error:
    print("no training:", error)
