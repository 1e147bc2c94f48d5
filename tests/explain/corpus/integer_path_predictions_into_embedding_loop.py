# source: https://github.com/tensorflow/tensorflow/issues/45219 (integer_path_predictions_into_embedding_fit.py in a custom training loop: the class scores fed into a frozen Embedding of the label words)
# expect: cause=integer-path line=17
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(2)
rng = np.random.default_rng(2)
label_vectors = rng.normal(size=(13, 50)).astype("float32")  # a word vector per label
images = tf.constant(rng.uniform(size=(16, 24, 24, 3)), tf.float32)
labels = tf.constant(np.eye(13)[rng.integers(0, 13, size=16)], tf.float32)

model = keras.Sequential([
    keras.Input((24, 24, 3)),
    keras.layers.Conv2D(8, 3, activation="relu"), keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(13, activation="relu"),
    keras.layers.Embedding(13, 50, weights=[label_vectors], trainable=False),
    keras.layers.Flatten(), keras.layers.Dense(13, activation="softmax"),
])
optimizer = keras.optimizers.Adam()
loss_fn = keras.losses.CategoricalCrossentropy()
for step in range(2):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(images, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    print(step, [g is None for g in grads])
    optimizer.apply_gradients([(g, v) for g, v in zip(grads, model.trainable_variables) if g is not None])
