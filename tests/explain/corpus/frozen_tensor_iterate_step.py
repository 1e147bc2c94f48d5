# source: https://www.tensorflow.org/guide/function (Python side effects such as object mutation run only while a tf.function is traced: here a compiled step that updates its estimate by hand, self.w = self.w - lr * g, computes from the first estimate at every call, and the loss never falls)
# expect: cause=frozen-python-state line=21
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(8)
features = tf.constant(np.random.normal(size=(64, 3)).astype("float32"))
target = features @ tf.constant([[1.5], [-2.0], [0.5]])


class LeastSquares:
    def __init__(self, lr=0.1):
        self.w, self.lr = tf.zeros((3, 1)), lr

    @tf.function
    def step(self):
        with tf.GradientTape() as tape:
            tape.watch(self.w)
            loss = tf.reduce_mean(tf.square(features @ self.w - target))
        self.w = self.w - self.lr * tape.gradient(loss, self.w)
        return loss


fit = LeastSquares()
for i in range(5):
    print(i, float(fit.step()))
