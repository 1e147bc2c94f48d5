# source: https://insights.willogy.io/tensorflow-part-3-automatic-differentiation/
# expect: cause=variable-replaced line=14
import tensorflow as tf

W = tf.Variable(tf.random.normal((2, 1)))
b = tf.Variable(0.0)
X = tf.random.normal((20, 2))
Y = tf.matmul(X, [[2.0], [-1.0]]) + 0.5
learning_rate = 0.1
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(X, W) + b - Y))
    dW, db = tape.gradient(loss, [W, b])
    W = W - learning_rate * dW
    b.assign_sub(learning_rate * db)
