# source: https://github.com/keras-team/keras/issues/20294 (loss weights meant to change with the epoch, set from a callback; here a train_step override reads the weight of its auxiliary term as a Python float, 0.0 when fit traced the step, so the weights only that term trains get a gradient of exactly 0 however the callback changes it)
# expect: cause=frozen-python-state line=24
import keras
import numpy as np
import tensorflow as tf


class TwoHeads(keras.Model):
    def __init__(self):
        super().__init__()
        self.body = keras.layers.Dense(8, activation="tanh")
        self.main_head = keras.layers.Dense(1)
        self.aux_head = keras.layers.Dense(1)
        self.aux_weight = 0.0  # switched on by the callback after the first epoch

    def call(self, x):
        features = self.body(x)
        return self.main_head(features), self.aux_head(features)

    def train_step(self, data):
        x, (y_main, y_aux) = data
        with tf.GradientTape() as tape:
            main, aux = self(x, training=True)
            loss = tf.reduce_mean(tf.square(main - y_main)) + self.aux_weight * tf.reduce_mean(tf.square(aux - y_aux))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


class SwitchOn(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        self.model.aux_weight = 1.0


keras.utils.set_random_seed(6)
rng = np.random.default_rng(6)
x = rng.normal(size=(64, 3)).astype("float32")
model = TwoHeads()
model.compile(optimizer=keras.optimizers.Adam(0.01))
model.fit(x, (x[:, :1] * 2.0, x[:, 1:2] - x[:, 2:]), epochs=3, batch_size=32, callbacks=[SwitchOn()], verbose=0)
print("aux head bias:", model.aux_head.bias.numpy())
