# source: https://github.com/keras-team/keras/issues/13826 (KL annealing: a callback raises the KL term's weight epoch by epoch, yet the KL contribution to the loss stays constant; here the loss is a plain function that reads the weight from a settings object, a Python float frozen into fit's traced step)
# expect: cause=frozen-python-state line=21
import keras
import numpy as np


class Annealing:
    kl_weight = 0.0


annealing = Annealing()


class RaiseKL(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        annealing.kl_weight = min(1.0, epoch / 2)


def loss_with_kl(y_true, y_pred):
    reconstruction = keras.ops.mean(keras.ops.square(y_true - y_pred), axis=-1)
    return reconstruction + annealing.kl_weight * keras.ops.mean(keras.ops.square(y_pred), axis=-1)


keras.utils.set_random_seed(8)
data = np.random.default_rng(8).normal(size=(96, 6)).astype("float32")
autoencoder = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="tanh"), keras.layers.Dense(6)])
autoencoder.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss_with_kl)
history = autoencoder.fit(data, data, epochs=4, batch_size=32, callbacks=[RaiseKL()], verbose=0)
print("kl weight now", annealing.kl_weight, "losses", [round(v, 4) for v in history.history["loss"]])
