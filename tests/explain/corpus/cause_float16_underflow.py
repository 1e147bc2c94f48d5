# source: https://theneuralbase.com/tensorflow/learn/intermediate/when-mixed-precision-hurts/ (float16 without loss scaling: small gradients underflow to zero)
# expect: cause=underflow line=16
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(7)
x = tf.constant(rng.normal(size=(16, 8)), tf.float16)
y = tf.constant(rng.normal(size=(16, 1)), tf.float16)
w = tf.Variable(tf.zeros([8, 1], tf.float16))
lr = 0.1

for step in range(3):
    with tf.GradientTape() as tape:
        prediction = tf.matmul(x, w)
        # a mean over a large batch, weighted down: every per-example term is below float16's smallest step
        loss = tf.reduce_mean(tf.square(prediction - y)) * tf.constant(1e-7, tf.float16)
    # the gradient underflows to exactly 0 in float16: w never moves
    grad = tape.gradient(loss, w)
    w.assign_sub(lr * grad)
print(float(tf.reduce_max(tf.abs(w))))
