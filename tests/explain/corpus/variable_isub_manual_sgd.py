# source: https://github.com/dsgiitr/Neural-Style-Transfer/issues/2 (an augmented assignment on a tf.Variable; here a manual SGD step)
# expect: cause=variable-replaced line=17
import numpy as np
import tensorflow as tf

x = tf.constant(np.random.rand(64, 3).astype("float32"))
y = tf.constant(np.random.rand(64, 1).astype("float32"))
w1 = tf.Variable(tf.random.normal((3, 8), stddev=0.1))
w2 = tf.Variable(tf.random.normal((8, 1), stddev=0.1))
lr = 0.05
for step in range(10):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.nn.relu(x @ w1) @ w2 - y) ** 2)
    g1, g2 = tape.gradient(loss, [w1, w2])
    w1.assign_sub(lr * g1)
    # the second weight is "updated" with -=, which TensorFlow refuses for a tf.Variable
    w2 -= lr * g2
print(float(loss))
