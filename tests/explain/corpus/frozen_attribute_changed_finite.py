# source: https://github.com/tensorflow/tensorflow/issues/44980 ("Changing self properties does not trigger retracing ... one just sees a different MSE when switching to graph mode": an attribute the traced step reads, changed between calls)
# expect: cause=frozen-python-state line=17
import numpy as np
import tensorflow as tf


class Regression(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.zeros([4, 1]))
        self.noise_scale = 0.5  # lowered as training goes on

    @tf.function
    def gradient(self, x, y):
        with tf.GradientTape() as tape:
            residual = tf.matmul(x, self.w) - y
            penalty = tf.reduce_sum(tf.square(self.w))
            loss = tf.reduce_mean(tf.square(residual)) + self.noise_scale * penalty
        return tape.gradient(loss, self.w)


rng = np.random.default_rng(6)
x = tf.constant(rng.normal(size=(32, 4)), tf.float32)
y = tf.constant(rng.normal(size=(32, 1)), tf.float32)
model = Regression()
for epoch in range(3):
    model.w.assign_sub(0.1 * model.gradient(x, y))
    model.noise_scale *= 0.5
print(model.w.numpy().ravel())
