# source: https://github.com/tensorflow/tensorflow/issues/44980 (an attribute of self read inside a tf.function method and changed later: no retrace, the graph keeps the old value)
# expect: cause=frozen-python-state line=21
import keras
import tensorflow as tf

keras.utils.set_random_seed(5)


class Trainer:
    def __init__(self):
        self.body = keras.layers.Dense(4, activation="relu")
        self.body.build((None, 3))
        self.optimizer = keras.optimizers.SGD(0.1)
        self.l2_weight = 0.0  # no weight decay at first; the schedule raises it later

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            prediction = tf.reduce_sum(self.body(x), axis=1, keepdims=True)
            # the penalty alone reaches `scale`: its gradient is l2_weight * 2 * scale, as traced
            penalty = self.l2_weight * tf.reduce_sum(tf.square(scale))
            loss = tf.reduce_mean(tf.square(prediction - y)) + penalty
        grads = tape.gradient(loss, [self.body.kernel, scale])
        self.optimizer.apply_gradients(zip(grads, [self.body.kernel, scale]))
        return grads


scale = tf.Variable([1.5, -2.0], name="scale")
trainer = Trainer()
x = tf.random.normal((16, 3))
y = tf.random.normal((16, 1))
for epoch in range(5):
    if epoch == 1:
        trainer.l2_weight = 0.01  # the traced step never sees it: `scale` keeps a zero gradient
    grads = trainer.train_step(x, y)
print(float(tf.reduce_max(tf.abs(grads[1]))))
