# source: https://github.com/openai/gpt-2/pull/122 ("Since we are multiplying by 1e10 originally to mask attention weights, when training in fp16, there is a gradient overflow": 1e10 cast to float16 is inf, and inf times the mask's 0 is NaN)
# expect: cause=non-finite line=18
import keras
import numpy as np
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_float16")
query, key, value = keras.layers.Dense(8), keras.layers.Dense(8), keras.layers.Dense(8)
for layer in (query, key, value):
    layer.build((None, 5, 8))
keras.mixed_precision.set_global_policy("float32")  # the layers keep their float16 compute dtype
tokens = np.random.default_rng(2).uniform(size=(3, 5, 8)).astype("float32")


def causal_mask(scores):
    length = scores.shape[-1]
    keep = tf.cast(tf.linalg.band_part(tf.ones([length, length]), -1, 0), scores.dtype)
    large = tf.cast(1e10, scores.dtype)
    return scores * keep - large * (1 - keep)


@tf.function
def train_step(batch):
    with tf.GradientTape() as tape:
        q, k, v = query(batch), key(batch), value(batch)
        weights = tf.nn.softmax(causal_mask(tf.matmul(q, k, transpose_b=True) / 8 ** 0.5), axis=-1)
        loss = tf.reduce_mean(tf.cast(tf.matmul(weights, v), tf.float32) ** 2)
    return tape.gradient(loss, query.trainable_variables)


print([bool(np.isfinite(g.numpy()).all()) for g in train_step(tokens)])
