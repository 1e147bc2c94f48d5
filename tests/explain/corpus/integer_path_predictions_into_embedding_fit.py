# source: https://github.com/tensorflow/tensorflow/issues/45219 (an image classifier's predictions fed into a frozen Embedding of the label words: "Gradients do not exist for variables" for every layer before it)
# expect: cause=integer-path line=21
import keras
import numpy as np

keras.utils.set_random_seed(2)
rng = np.random.default_rng(2)
label_vectors = rng.normal(size=(13, 50)).astype("float32")  # a word vector per label
images = rng.uniform(size=(48, 24, 24, 3)).astype("float32")
labels = np.eye(13, dtype="float32")[rng.integers(0, 13, size=48)]

model = keras.Sequential([
    keras.Input((24, 24, 3)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(32, activation="relu"),
    keras.layers.BatchNormalization(),
    keras.layers.Dropout(0.2),
    keras.layers.Dense(13, activation="relu"),
    # each class's word vector, looked up from the class scores
    keras.layers.Embedding(13, 50, weights=[label_vectors], trainable=False),
    keras.layers.Flatten(),
    keras.layers.Dense(13, activation="softmax"),
])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(images, labels, epochs=1, batch_size=16, verbose=0)
