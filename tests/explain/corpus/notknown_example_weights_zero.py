# source: https://github.com/uber-research/learning-to-reweight-examples/issues/3 (the example weights start as zeros, so the weighted loss's gradient is zero)
# expect: cause=not-known line=18
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(3)
x = tf.constant(rng.normal(size=(32, 4)), tf.float32)
y = tf.constant(rng.normal(size=(32, 1)), tf.float32)
w = tf.Variable(rng.normal(size=(4, 1)).astype("float32"))
b = tf.Variable([0.0])
example_weights = tf.zeros([32])  # "why is ex_wts_a always zeros?": every example weighs nothing
optimizer = tf.keras.optimizers.SGD(0.1)

for step in range(3):
    with tf.GradientTape() as tape:
        per_example = tf.square(tf.matmul(x, w) + b - y)[:, 0]
        loss = tf.reduce_sum(per_example * example_weights)
    grads = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(grads, [w, b]))
print(w.numpy().ravel(), b.numpy())
