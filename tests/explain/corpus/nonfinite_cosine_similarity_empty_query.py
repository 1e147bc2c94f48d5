# source: https://github.com/InsaneLife/dssm/issues/17 (DSSM's cosine similarity of a query that is all padding: its norm is sqrt(0), and the similarity 0 / 0)
# expect: cause=non-finite line=16
import numpy as np
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
embedding = keras.layers.Embedding(20, 8)


def bag_of_words(ids):
    return tf.reduce_sum(embedding(ids) * tf.cast(ids > 0, tf.float32)[..., None], axis=1)


def cosine(a, b):
    a_norm = tf.sqrt(tf.reduce_sum(tf.square(a), axis=1))
    b_norm = tf.sqrt(tf.reduce_sum(tf.square(b), axis=1))
    return tf.reduce_sum(a * b, axis=1) / (a_norm * b_norm)


queries = np.random.randint(1, 20, (3, 5))
queries[1] = 0  # a query of padding only
documents = np.random.randint(1, 20, (3, 5))
with tf.GradientTape() as tape:
    loss = -tf.reduce_mean(cosine(bag_of_words(queries), bag_of_words(documents)))
print("NaN:", bool(np.isnan(tf.convert_to_tensor(tape.gradient(loss, embedding.embeddings)).numpy()).any()))
