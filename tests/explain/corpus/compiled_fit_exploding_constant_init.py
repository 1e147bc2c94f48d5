# source: https://github.com/keras-team/keras/issues/10847 (nonfinite_exploding_learning_rate.py's kind: every weight initialised to a large constant and a large learning rate: "a typical one that would cause gradient explosion"; here without its ReLUs, which died instead of overflowing)
# expect: cause=non-finite line=18
import keras
import numpy as np

keras.utils.set_random_seed(7)
init = keras.initializers.Constant(1.0)
model = keras.Sequential([
    keras.Input((64,)),
    keras.layers.Dense(64, kernel_initializer=init),
    keras.layers.Dense(64, kernel_initializer=init),
    keras.layers.Dense(1, kernel_initializer=init),
])
model.compile(loss="mse", optimizer=keras.optimizers.SGD(learning_rate=0.1))
rng = np.random.default_rng(10)
images = rng.random((64, 64)).astype("float32")
labels = rng.random((64, 1)).astype("float32")
model.fit(images, labels, batch_size=16, epochs=2, verbose=0)
print(model.get_weights()[0][0, :3])
