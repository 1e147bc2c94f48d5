# source: https://github.com/tensorflow/tensorflow/issues/57365 (the same trace reused for another tf.Variable argument; here the variables are a model's attributes and the step reads self.slope by name)
# expect: cause=frozen-python-state line=16
import numpy as np
import tensorflow as tf


class Line(tf.Module):
    def __init__(self):
        self.slope = tf.Variable(0.5)
        self.intercept = tf.Variable(-1.0)

    @tf.function
    def partial(self, wrt, x, y):
        with tf.GradientTape() as tape:
            tape.watch(wrt)
            residual = self.slope * x + self.intercept - y
            loss = tf.reduce_mean(residual ** 2)
        return tape.gradient(loss, wrt)


rng = np.random.default_rng(3)
x = tf.constant(rng.uniform(-1, 1, 64), tf.float32)
y = 2.0 * x + 0.5
line = Line()
for step in range(20):
    for variable in (line.slope, line.intercept):
        variable.assign_sub(0.2 * line.partial(variable, x, y))
print("slope", float(line.slope), "intercept", float(line.intercept))
