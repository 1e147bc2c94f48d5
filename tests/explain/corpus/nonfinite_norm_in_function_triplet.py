# source: https://github.com/tensorflow/tensorflow/issues/30199 ("Gradient returns Nan values when using triplet loss with similar batches": a positive equal to its anchor makes the distance 0, and the norm's gradient there is NaN)
# expect: cause=non-finite line=12
import keras
import numpy as np
import tensorflow as tf

embed = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4)])


@tf.function
def distance(a, b):
    return tf.norm(a - b, axis=-1)


rng = np.random.default_rng(4)
anchor = rng.normal(size=(8, 6)).astype("float32")
positive = anchor + rng.normal(scale=0.1, size=(8, 6)).astype("float32")
positive[3] = anchor[3]  # a positive drawn equal to its anchor
negative = rng.normal(size=(8, 6)).astype("float32")
with tf.GradientTape() as tape:
    a, p, n = embed(anchor), embed(positive), embed(negative)
    loss = tf.reduce_mean(tf.maximum(distance(a, p) - distance(a, n) + 5.0, 0.0))
grads = tape.gradient(loss, embed.trainable_variables)
print([bool(np.isnan(g.numpy()).any()) for g in grads])
