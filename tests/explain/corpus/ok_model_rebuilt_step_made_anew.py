# source: https://github.com/tensorflow/tensorflow/issues/27120 (the thread's answer for one training step used on several models: a function that makes the tf.function, called again for each new model)
# expect: clean
import numpy as np
import tensorflow as tf
import keras

keras.utils.set_random_seed(1)
images = np.random.default_rng(2).normal(size=(16, 16, 16, 3)).astype("float32")
labels = np.random.default_rng(3).integers(0, 2, size=(16,))


def build(*convs):
    return keras.Sequential([keras.Input((16, 16, 3)), *convs, keras.layers.GlobalAveragePooling2D(),
                             keras.layers.Dense(2)])


def make_train_step():
    @tf.function
    def train_step(x, y, model, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True))
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        return loss
    return train_step


first_conv = keras.layers.Conv2D(8, 3, activation="relu")
for convs in ([first_conv], [first_conv, keras.layers.Conv2D(8, 3, activation="relu")]):
    model, optimizer, train_step = build(*convs), keras.optimizers.Adam(1e-2), make_train_step()
    before = model.layers[-3].kernel.numpy().copy()
    for _ in range(3):
        train_step(images, labels, model, optimizer)
    print(len(convs), "convs; last conv trained:", not np.allclose(before, model.layers[-3].kernel.numpy()))
