# source: https://github.com/GPflow/GPflow/pull/1199 (GPflow 1's `m.likelihood.variance = 0.1` carried into TF 2: the assignment replaces the parameter's variable with a float, and the variable the optimizer holds is read by nothing)
# expect: cause=variable-replaced line=25
import numpy as np
import tensorflow as tf


class Kernel(tf.Module):
    def __init__(self):
        super().__init__()
        self.lengthscale = tf.Variable(1.0, name="lengthscale")
        self.variance = tf.Variable(1.0, name="variance")

    def __call__(self, a, b):
        scaled = (a[:, None] - b[None, :]) / self.lengthscale
        return self.variance * tf.exp(-0.5 * scaled ** 2)


rng = np.random.default_rng(2)
x = tf.constant(np.sort(rng.uniform(0.0, 4.0, 24)), tf.float32)
y = tf.sin(x) + 0.1 * tf.constant(rng.normal(size=24), tf.float32)
kernel = Kernel()
parameters = list(kernel.trainable_variables)  # [lengthscale, variance], taken once for the optimizer
optimizer = tf.keras.optimizers.Adam(0.05)
# a starting value for the signal variance, set the GPflow 1 way: the attribute now holds a float
kernel.variance = 0.5

for step in range(3):
    with tf.GradientTape() as tape:
        k = kernel(x, x) + 0.1 * tf.eye(24)
        alpha = tf.linalg.solve(k, y[:, None])
        loss = 0.5 * tf.reduce_sum(y[:, None] * alpha) + 0.5 * tf.linalg.logdet(k)
    grads = tape.gradient(loss, parameters)
    print(step, [None if g is None else round(float(g), 4) for g in grads])
    optimizer.apply_gradients([(g, v) for g, v in zip(grads, parameters) if g is not None])
