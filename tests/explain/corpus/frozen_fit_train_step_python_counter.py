# source: https://github.com/bayesflow-org/bayesflow/issues/223 (a step counter kept as a Python int and advanced inside train_step: fit runs the traced step, the += 1 ran only while tracing, and the loss schedule keyed on it never advances)
# expect: cause=frozen-python-state line=31
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(9)


class Scheduled(keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = keras.layers.Dense(8, activation="relu")
        self.reconstruct = keras.layers.Dense(3)
        self.regularise = keras.layers.Dense(3)
        self.seen_batches = 0

    def call(self, x):
        h = self.encoder(x)
        return self.reconstruct(h), self.regularise(h)

    def train_step(self, data):
        x, y = data
        ramp = 0.5 if self.seen_batches > 4 else 0.0  # the second loss joins after a few batches
        with tf.GradientTape() as tape:
            first, second = self(x, training=True)
            loss = tf.reduce_mean(tf.square(first - y)) + ramp * tf.reduce_mean(tf.square(second + y))
        variables = self.trainable_variables
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        self.seen_batches += 1
        return {"loss": loss}


rng = np.random.default_rng(9)
inputs = rng.normal(size=(160, 5)).astype("float32")
targets = inputs[:, :3] * 0.5
model = Scheduled()
model.compile(optimizer=keras.optimizers.Adam(1e-2))
model(inputs[:1])
before = model.regularise.kernel.numpy().copy()
model.fit(inputs, targets, epochs=3, batch_size=16, verbose=0)
print("batches counted:", model.seen_batches, "second head moved:",
      float(np.abs(model.regularise.kernel.numpy() - before).max()))
