# source: https://github.com/tensorflow/tensorflow/issues/12071 (tf.norm over rows: NaN gradient for a row of zeros, inf for a tiny one)
# expect: cause=non-finite line=10
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(5)
embeddings = tf.Variable(np.vstack([rng.normal(size=(3, 4)), np.zeros((1, 4))]).astype("float32"))  # one padding row
with tf.GradientTape() as tape:
    # the length of each embedding, to keep it near 1
    lengths = tf.norm(embeddings, ord="euclidean", axis=1)
    loss = tf.reduce_mean(tf.square(lengths - 1.0))
print(tape.gradient(loss, embeddings))
