# source: https://github.com/tensorflow/tensorflow/issues/12071 (the workaround: a small epsilon under the square root, so a zero row has a finite slope)
# expect: clean
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(5)
embeddings = tf.Variable(np.vstack([rng.normal(size=(3, 4)), np.zeros((1, 4))]).astype("float32"))
with tf.GradientTape() as tape:
    lengths = tf.sqrt(tf.reduce_sum(tf.square(embeddings), axis=1) + 1e-12)
    loss = tf.reduce_mean(tf.square(lengths - 1.0))
print(tape.gradient(loss, embeddings))
