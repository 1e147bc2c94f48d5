# source: https://github.com/tensorflow/tensorflow/issues/12071 (nonfinite_norm_zero_row.py in a @tf.function training loop: the lengths of embeddings kept near 1, one of them a zero padding row)
# expect: cause=non-finite line=15
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(5)
embeddings = tf.Variable(np.vstack([rng.normal(size=(3, 4)), np.zeros((1, 4))]).astype("float32"))
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def step():
    with tf.GradientTape() as tape:
        # the length of each embedding: the padding row's is 0, where the norm's slope is 0/0
        lengths = tf.norm(embeddings, axis=1)
        loss = tf.reduce_mean(tf.square(lengths - 1.0))
    grads = tape.gradient(loss, [embeddings])
    optimizer.apply_gradients(zip(grads, [embeddings]))
    return loss


for _ in range(3):
    print(step().numpy())
