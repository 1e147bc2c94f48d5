# source: https://keras.io/guides/transfer_learning/ (the guide's fine-tuning step done right: base_model.trainable = True, then compile again before fit, so the new step trains the base too)
# expect: clean
import keras
import numpy as np

keras.utils.set_random_seed(8)
images = np.random.rand(96, 8, 8, 3).astype("float32")
labels = np.random.randint(0, 4, size=(96,))
base_model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(6, 3, activation="relu"),
                               keras.layers.GlobalAveragePooling2D()], name="base")
model = keras.Sequential([base_model, keras.layers.Dense(4)])
base_model.trainable = False
model.compile(optimizer=keras.optimizers.Adam(1e-3),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(images, labels, epochs=1, batch_size=32, verbose=0)

base_model.trainable = True
model.compile(optimizer=keras.optimizers.Adam(1e-5),  # very low learning rate, as the guide says
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
before = base_model.layers[0].kernel.numpy().copy()
model.fit(images, labels, epochs=1, batch_size=32, verbose=0)
print("base moved:", float(np.abs(base_model.layers[0].kernel.numpy() - before).max()))
