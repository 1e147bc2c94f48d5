# source: https://keras.io/guides/transfer_learning/ ("it's important to recompile your model after you make any changes to the trainable attribute of any inner layer"; a base unfrozen between two fits, without compiling again)
# expect: cause=frozen-python-state line=19
import keras
import numpy as np

keras.utils.set_random_seed(6)
rng = np.random.default_rng(6)
images = rng.normal(size=(96, 10)).astype("float32")
labels = (images[:, :3].sum(axis=1) > 0).astype("float32")

base = keras.Sequential([keras.Input((10,)), keras.layers.Dense(12, activation="relu"),
                         keras.layers.Dense(6, activation="relu")], name="base")
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="binary_crossentropy")
model.fit(images, labels, epochs=2, batch_size=32, verbose=0)

before = base.layers[0].kernel.numpy().copy()
base.trainable = True  # fine-tune the base now, with the step fit traced while it was frozen
model.fit(images, labels, epochs=2, batch_size=32, verbose=0)
print("base moved:", float(np.abs(base.layers[0].kernel.numpy() - before).max()))
