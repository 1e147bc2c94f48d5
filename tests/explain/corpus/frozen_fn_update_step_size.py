# source: https://itsfoss.gitlab.io/post/why-your-tffunction-isnt-working-the-way-you-think-and-how-to-fix-it (a step size kept as a Python float and raised after a warm-up: the tf.function update keeps the value it was traced with, so the weights never move)
# expect: cause=frozen-python-state line=19
import numpy as np
import tensorflow as tf

tf.random.set_seed(13)
features = tf.constant(np.random.default_rng(13).uniform(size=(64, 2)), tf.float32)
targets = features @ tf.constant([[1.5], [-0.5]]) + 0.25
weights = tf.Variable(tf.zeros((2, 1)))
bias = tf.Variable(0.0)
step_size = 0.0  # held at zero while the data pipeline warms up


@tf.function
def update(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ weights + bias - y))
    grad_w, grad_b = tape.gradient(loss, [weights, bias])
    weights.assign_sub(step_size * grad_w)
    bias.assign_sub(step_size * grad_b)
    return loss


for epoch in range(6):
    if epoch == 2:
        step_size = 0.2
    loss = update(features, targets)
print("loss", float(loss), "weights", weights.numpy().ravel())
