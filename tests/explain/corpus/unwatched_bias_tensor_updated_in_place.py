# source: https://github.com/dragen1860/Deep-Learning-with-TensorFlow-book/issues/156 (a hand-written MLP trained with p.assign_sub(lr * g): one bias made with tf.zeros is a tensor, not a tf.Variable, so the tape never watches it and its gradient is None, and the update would fail on it too)
# expect: cause=unwatched line=12
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(17)
x = tf.constant(rng.random((32, 20)).astype("float32"))
y = tf.one_hot(rng.integers(0, 4, 32), depth=4)
w1 = tf.Variable(tf.random.truncated_normal([20, 16], stddev=0.1, seed=17))
b1 = tf.Variable(tf.zeros([16]))
w2 = tf.Variable(tf.random.truncated_normal([16, 4], stddev=0.1, seed=18))
b2 = tf.zeros([4])
lr = 0.05
for step in range(3):
    with tf.GradientTape() as tape:
        out = tf.nn.relu(x @ w1 + b1) @ w2 + b2
        loss = tf.reduce_mean(tf.square(y - out))
    grads = tape.gradient(loss, [w1, b1, w2, b2])
    print(step, float(loss), [g is None for g in grads])
    for p, g in zip([w1, b1, w2, b2], grads):
        if g is not None:
            p.assign_sub(lr * g)
