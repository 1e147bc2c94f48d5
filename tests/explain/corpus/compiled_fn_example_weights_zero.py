# source: https://github.com/uber-research/learning-to-reweight-examples/issues/3 (notknown_example_weights_zero.py in a @tf.function step)
# expect: cause=not-known line=20
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(3)
x = tf.constant(rng.normal(size=(32, 4)), tf.float32)
y = tf.constant(rng.normal(size=(32, 1)), tf.float32)
w = tf.Variable(rng.normal(size=(4, 1)).astype("float32"))
b = tf.Variable([0.0])
example_weights = tf.zeros([32])  # every example weighs nothing
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        per_example = tf.square(tf.matmul(x, w) + b - y)[:, 0]
        loss = tf.reduce_sum(per_example * example_weights)
    grads = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(grads, [w, b]))
    return loss


for step in range(3):
    train_step()
print(w.numpy().ravel(), b.numpy())
