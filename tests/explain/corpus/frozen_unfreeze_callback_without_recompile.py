# source: https://keras.io/api/layers/base_layer/ (Layer.trainable: "When this value is changed during training (e.g. with a Callback) you need to call the parent Model.make_train_function with force=True in order to recompile the training graph"; a callback unfreezes the encoder mid-fit and does not)
# expect: cause=frozen-python-state line=23
import keras
import numpy as np

keras.utils.set_random_seed(11)
inputs = np.random.normal(size=(160, 12)).astype("float32")
targets = np.random.normal(size=(160, 1)).astype("float32")

encoder = keras.Sequential([keras.Input((12,)), keras.layers.Dense(16, activation="tanh"),
                            keras.layers.Dense(8, activation="tanh")], name="encoder")
regressor = keras.Sequential([encoder, keras.layers.Dense(1)])
encoder.trainable = False  # warm up the head first


class ThawEncoder(keras.callbacks.Callback):
    def __init__(self, at_epoch):
        super().__init__()
        self.at_epoch = at_epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.at_epoch:
            encoder.trainable = True


regressor.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
first = encoder.layers[0].kernel.numpy().copy()
regressor.fit(inputs, targets, epochs=3, batch_size=32, callbacks=[ThawEncoder(1)], verbose=0)
print("encoder moved:", float(np.abs(encoder.layers[0].kernel.numpy() - first).max()))
