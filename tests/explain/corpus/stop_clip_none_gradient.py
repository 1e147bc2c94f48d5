# source: https://github.com/udacity/deep-learning/issues/43 (one gradient is None and the clipping of every gradient raises on it)
# expect: cause=stop-gradient line=15
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(3)
embedding = tf.Variable(rng.normal(size=(10, 4)).astype("float32"))
dense = tf.Variable(rng.normal(size=(4, 1)).astype("float32"))
ids = tf.constant([1, 4, 7])
optimizer = tf.keras.optimizers.SGD(0.1)

with tf.GradientTape() as tape:
    # the pretrained embedding is meant to stay fixed: stop_gradient keeps it out of the loss's gradient
    vectors = tf.nn.embedding_lookup(embedding, ids)
    frozen = tf.stop_gradient(vectors)
    loss = tf.reduce_mean(tf.square(tf.matmul(frozen, dense)))
grads = tape.gradient(loss, [embedding, dense])
clipped = [tf.clip_by_norm(g, 1.0) for g in grads]
optimizer.apply_gradients(zip(clipped, [embedding, dense]))
