# source: https://errorhandle.ai/can-my-prediction-score-be-too-high-100-for-one-class-on-keras-with-tensorflow-as-backend (a classifier trained until it is 100 % sure of each class: its softmax sits at 0 and 1, and it is right)
# expect: clean
import keras
import numpy as np

keras.utils.set_random_seed(3)
centres = np.random.randn(4, 8).astype("float32") * 6
labels = np.random.randint(0, 4, 512)
X = centres[labels] + np.random.randn(512, 8).astype("float32") * 0.3  # four clusters, far apart

model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(32, activation="tanh"),
    keras.layers.Dense(4, activation="softmax"),
])
model.compile(optimizer=keras.optimizers.Adam(0.05), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(X, labels, batch_size=64, epochs=40, verbose=0)
probabilities = model.predict(X, verbose=0)
print("accuracy:", float((probabilities.argmax(1) == labels).mean()), "share sure:", float((probabilities.max(1) > 0.999).mean()))
