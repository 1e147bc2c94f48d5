# source: https://github.com/tensorflow/tensorflow/issues/56968
# expect: cause=cannot-watch line=8
import tensorflow as tf

tokens = tf.constant([[3, 1, 4]])
embedding = tf.Variable(tf.random.normal((5, 2)))
with tf.GradientTape() as tape:
    tape.watch(tokens)
    vectors = tf.nn.embedding_lookup(embedding, tokens)
    loss = tf.reduce_sum(vectors)
print(tape.gradient(loss, embedding) is not None)
