# source: https://github.com/keras-team/keras/issues/3040 (nonfinite_exploding_linear_regression.py trained with fit, as reported: a one-weight linear regression on inputs up to 199 with SGD, batch_size=1; the weights go to NaN after a few iterations; "realized my learning rate was too high")
# expect: cause=non-finite line=13
import keras
import numpy as np

x = np.arange(200, dtype="float32")[:, None]
y = 2.0 * x

keras.utils.set_random_seed(3)
model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
model.compile(loss="mean_squared_error", optimizer=keras.optimizers.SGD(learning_rate=0.001))
# each step overshoots: at inputs near 199, the update is larger than the weight it corrects
model.fit(x, y, epochs=1, batch_size=1, verbose=0)
print("weights:", [w.tolist() for w in model.get_weights()])
