# source: https://github.com/tensorflow/tensorflow/issues/56968
# expect: clean
import tensorflow as tf

tokens = tf.constant([[3, 1, 4]])
embedding = tf.Variable(tf.random.normal((5, 2)))
with tf.GradientTape() as tape:
    vectors = tf.nn.embedding_lookup(embedding, tokens)
    loss = tf.reduce_sum(vectors ** 2)
grad = tape.gradient(loss, embedding)
print(type(grad).__name__, tf.convert_to_tensor(grad).shape)
