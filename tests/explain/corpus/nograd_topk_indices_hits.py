# source: https://github.com/tensorflow/tensorflow/issues/288 (sorting with tf.nn.top_k: "are those functions differentiable?")
# expect: cause=no-gradient-op line=12
import keras
import tensorflow as tf

scorer = keras.Sequential([keras.Input((5,)), keras.layers.Dense(10)])
items = tf.random.normal((4, 5))
wanted = tf.constant([[1], [3], [5], [7]])
with tf.GradientTape() as tape:
    scores = scorer(items)
    # the recommended items are the indices of the top scores; the loss counts the misses
    _, top = tf.math.top_k(scores, k=3)
    top = tf.cast(top, tf.float32)
    misses = tf.reduce_sum(tf.abs(top - tf.cast(wanted, tf.float32)))
grads = tape.gradient(misses, scorer.trainable_variables)
print([g is None for g in grads])
