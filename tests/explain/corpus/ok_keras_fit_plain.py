# source: https://keras.io/guides/training_with_built_in_methods/
# expect: clean
import keras
import numpy as np

model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(32, 5), np.random.rand(32, 1), epochs=2, batch_size=8, verbose=0)
print(model.predict(np.random.rand(2, 5), verbose=0).shape)
