# source: https://github.com/njuhugn/CoNet/issues/1 (a TF1 model run in TF2's eager mode: the optimizer's compute_gradients is given the loss tensor, and TensorFlow refuses: "`loss` passed to Optimizer.compute_gradients should be a function when eager execution is enabled")
# expect: cause=outside-tape line=14
import tensorflow as tf

tf.random.set_seed(0)
w = tf.Variable(tf.random.normal((4, 1)), name="w")
b = tf.Variable(tf.zeros((1,)), name="b")
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1))

logits = tf.matmul(x, w) + b
loss = tf.reduce_mean(tf.square(logits - y))
optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=0.01)
grads_and_vars = optimizer.compute_gradients(loss, var_list=[w, b])
train_op = optimizer.apply_gradients(grads_and_vars)
