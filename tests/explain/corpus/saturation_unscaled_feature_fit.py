# source: https://m.iwriter.qq.com/read/1036698836/50 (Neural Networks with Keras Cookbook, on the input not scaled: w * x is a large number, so the sigmoid's output always falls in its saturated part and the weights are not updated)
# expect: cause=saturation line=12
import keras
import numpy as np

keras.utils.set_random_seed(2)
area = np.random.uniform(500.0, 4000.0, size=(256, 3)).astype("float32")  # square feet, rooms' areas: raw
expensive = (area.sum(axis=1) > 6750.0).astype("float32")

model = keras.Sequential([
    keras.Input((3,)),
    keras.layers.Dense(8, activation="sigmoid"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer=keras.optimizers.SGD(0.05), loss="binary_crossentropy")
first = model.layers[0].kernel.numpy().copy()
model.fit(area, expensive, epochs=2, batch_size=32, verbose=0)
print("first layer moved:", float(np.abs(model.layers[0].kernel.numpy() - first).max()))
