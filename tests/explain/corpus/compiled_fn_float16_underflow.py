# source: https://theneuralbase.com/tensorflow/learn/intermediate/mixed-precision-with-custom-loops/ (cause_float16_underflow.py in a @tf.function step, loss scaling left out)
# expect: cause=underflow line=15
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(11)
x = tf.constant(rng.normal(size=(16, 8)), tf.float16)
y = tf.constant(rng.normal(size=(16, 1)), tf.float16)
w = tf.Variable(tf.zeros([8, 1], tf.float16))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y)) * tf.constant(1e-7, tf.float16)
    # no LossScaleOptimizer: the float16 gradient underflows to exactly 0 inside the compiled step
    grad = tape.gradient(loss, w)
    w.assign_sub(tf.constant(0.1, tf.float16) * grad)
    return loss


for step in range(4):
    train_step(x, y)
print(float(tf.reduce_max(tf.abs(w))))
