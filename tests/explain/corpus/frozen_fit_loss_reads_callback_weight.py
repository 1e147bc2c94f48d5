# source: https://github.com/keras-team/keras/issues/3155 (a loss weight alpha meant to change with the epoch: a callback sets it after each epoch, the custom loss reads it, and the loss never changes; here a Loss subclass reads the callback's Python float, which fit's step froze into its graph when it was traced)
# expect: cause=frozen-python-state line=24
import keras
import numpy as np


class AlphaSchedule(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.alpha = 0.0  # the second output's weight: off for the first epoch, on after

    def on_epoch_end(self, epoch, logs=None):
        self.alpha = min(1.0, 0.5 * (epoch + 1))


class WeightedPair(keras.losses.Loss):
    def __init__(self, schedule):
        super().__init__(name="weighted_pair")
        self.schedule = schedule

    def call(self, y_true, y_pred):
        first = keras.ops.mean(keras.ops.square(y_true[:, :1] - y_pred[:, :1]), axis=-1)
        second = keras.ops.mean(keras.ops.square(y_true[:, 1:] - y_pred[:, 1:]), axis=-1)
        return first + self.schedule.alpha * second


keras.utils.set_random_seed(5)
rng = np.random.default_rng(5)
x = rng.normal(size=(128, 4)).astype("float32")
y = np.stack([x[:, 0] - x[:, 1], x[:, 2] * 2.0], axis=1).astype("float32")
schedule = AlphaSchedule()
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])
model.compile(optimizer=keras.optimizers.Adam(0.01), loss=WeightedPair(schedule))
history = model.fit(x, y, epochs=4, batch_size=32, callbacks=[schedule], verbose=0)
print("alpha now", schedule.alpha, "losses", [round(v, 4) for v in history.history["loss"]])
