# source: https://github.com/keras-team/keras/issues/9742 (the thread's answer: with more hidden units some stay alive, and the XOR net learns)
# expect: clean
import numpy as np
import keras
from keras.layers import Dense, Input
from keras.models import Model

x_train = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], dtype="float32")
y_train = np.array([[0], [1], [1], [0]], dtype="float32")

keras.utils.set_random_seed(8)
x = Input(shape=(2,))
hidden = Dense(16, activation="relu")(x)
y = Dense(1, activation="sigmoid")(hidden)
model = Model(inputs=x, outputs=y)
model.compile(optimizer=keras.optimizers.Adam(0.05), loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=200, verbose=0)
print("predictions:", model.predict(x_train, verbose=0).ravel())
