# source: https://github.com/andreped/GradientAccumulator/issues/102 (gradient accumulation in a @tf.function step that counts its calls in a Python attribute: "if self.first_call: … will not give what you want with @tf.function"; the count changes only while traced, so the accumulated update is never applied)
# expect: cause=frozen-python-state line=20
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(6)
x = tf.constant(np.random.normal(size=(32, 4)).astype("float32"))
y = tf.constant(np.random.normal(size=(32, 1)).astype("float32"))


class Accumulator:
    def __init__(self, model, steps):
        self.model, self.steps, self.calls = model, steps, 0
        self.optimizer = keras.optimizers.SGD(0.1)
        self.sums = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]

    @tf.function
    def train_step(self, x, y):
        self.calls += 1
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.model(x) - y))
        for total, g in zip(self.sums, tape.gradient(loss, self.model.trainable_variables)):
            total.assign_add(g)
        if self.calls % self.steps == 0:  # every `steps` batches: apply the sum, start again
            self.optimizer.apply_gradients(zip(self.sums, self.model.trainable_variables))
            for total in self.sums:
                total.assign(tf.zeros_like(total))
        return loss


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
trainer = Accumulator(model, steps=2)
before = model.layers[0].kernel.numpy().copy()
for step in range(6):
    trainer.train_step(x, y)
print("calls counted:", trainer.calls, "weights moved:", not np.allclose(before, model.layers[0].kernel.numpy()))
