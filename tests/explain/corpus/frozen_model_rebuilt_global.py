# source: https://github.com/tensorflow/tensorflow/issues/35826 (a model rebuilt with a second Conv2D under the same name: inside the compiled training step its trainable_weights are still the first model's)
# expect: cause=frozen-python-state line=22
import numpy as np
import tensorflow as tf
import keras

keras.utils.set_random_seed(1)
images = np.random.default_rng(2).normal(size=(16, 16, 16, 3)).astype("float32")
labels = np.random.default_rng(3).integers(0, 2, size=(16,))
first_conv = keras.layers.Conv2D(8, 3, activation="relu")
second_conv = keras.layers.Conv2D(8, 3, activation="relu")


def build(*convs):
    return keras.Sequential([keras.Input((16, 16, 3)), *convs, keras.layers.GlobalAveragePooling2D(),
                             keras.layers.Dense(2)])


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True))
    grads = tape.gradient(loss, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    return loss


optimizer = keras.optimizers.Adam(1e-2)
model = build(first_conv)
for _ in range(3):
    train_step(images, labels)
model = build(first_conv, second_conv)  # the model grows a layer; the compiled step is not traced again
before = second_conv.kernel.numpy().copy()
for _ in range(3):
    train_step(images, labels)
print("second conv trained:", not np.allclose(before, second_conv.kernel.numpy()))
