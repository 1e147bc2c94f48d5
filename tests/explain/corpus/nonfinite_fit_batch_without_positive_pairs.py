# source: https://github.com/tensorflow/addons/issues/2447 (a batch-hard triplet loss divided by the batch's count of positive pairs: batches of distinct labels have none, 0 / 0 in every step)
# expect: cause=non-finite line=17
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(15)


def batch_triplet_loss(y_true, y_pred):
    labels = tf.reshape(tf.cast(y_true, tf.int32), [-1])
    embeddings = tf.math.l2_normalize(y_pred, axis=1)
    distance = 1.0 - tf.matmul(embeddings, embeddings, transpose_b=True)
    same = tf.cast(tf.equal(labels[:, None], labels[None, :]), tf.float32)
    positives = same - tf.eye(tf.shape(labels)[0])
    hardest_negative = tf.reduce_min(distance + 10.0 * same, axis=1, keepdims=True)
    return tf.reduce_sum(tf.nn.relu((distance - hardest_negative + 0.3) * positives)) / tf.reduce_sum(positives)


model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(12, activation="relu"), keras.layers.Dense(4)])
model.compile(optimizer=keras.optimizers.Adam(1e-3), loss=batch_triplet_loss)
features = np.random.default_rng(15).normal(size=(96, 6)).astype("float32")
labels = (np.arange(96) % 12).astype("float32")  # twelve labels in a row: every batch of 6 has no pair
history = model.fit(features, labels, batch_size=6, epochs=1, shuffle=False, verbose=0)
print("loss:", history.history["loss"], "weights finite:", all(np.isfinite(w).all() for w in model.get_weights()))
