# source: https://github.com/yihong-chen/lambda-opt/issues/4 (TF1 graph: an embedding row updated with scatter_sub, the result used on, and the gradient for the lambda matrix is None)
# expect: cause=state-breaks-path line=18
import tensorflow as tf

with tf.Graph().as_default():
    w = tf.constant([[1.0], [2.0], [3.0]], dtype=tf.float32)
    y = tf.constant([5.0], dtype=tf.float32)
    emb_matrix = tf.compat.v1.get_variable("embedding_name", shape=(10, 3),
                                           initializer=tf.compat.v1.random_normal_initializer(), dtype=tf.float32)
    # get one line emb
    cur_emb = tf.nn.embedding_lookup(emb_matrix, [0])
    # The lambda matrix
    doc_lambda = tf.compat.v1.get_variable(name='docid_lambda', shape=(10, 3),
                                           initializer=tf.compat.v1.random_normal_initializer(), dtype=tf.float32)
    # get one line lambda
    cur_lambda = tf.nn.embedding_lookup(doc_lambda, [0])
    # theta(t+1)
    next_emb_matrix = tf.compat.v1.scatter_sub(emb_matrix, [0], (cur_emb * cur_lambda))
    # do some compute with theta(t+1)
    next_cur_emb = tf.nn.embedding_lookup(next_emb_matrix, [0])
    loss = tf.reduce_sum(tf.square(tf.matmul(next_cur_emb, w) - y))
    grads = tf.gradients(loss, [doc_lambda])
print(grads)
