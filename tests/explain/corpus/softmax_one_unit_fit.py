# source: https://github.com/keras-team/keras/issues/126 (a binary classifier whose last layer is Dense(1) with a softmax: a softmax over one unit is always 1, so the loss never improves and predict gives all ones)
# expect: cause=softmax-sum line=21
import numpy as np
import keras
from keras.models import Sequential
from keras.layers import Dense, Dropout, Input
from keras.optimizers import SGD

keras.utils.set_random_seed(0)
X = np.array([
    [0.0, 0.1], [0.6, 0.8], [0.1, 0.2], [0.9, 0.8],
    [0.9, 0.7], [0.3, 0.0], [0.2, 0.2], [0.5, 0.9]], dtype="float32")
y = (X[:, 0] + X[:, 1] > 0.5).astype("float32")

model = Sequential()
model.add(Input(shape=(2,)))
model.add(Dense(64, kernel_initializer='uniform', activation='tanh'))
model.add(Dropout(0.5))
model.add(Dense(64, kernel_initializer='uniform', activation='tanh'))
model.add(Dropout(0.5))
model.add(Dense(1, kernel_initializer='uniform', activation='softmax'))
sgd = SGD(learning_rate=0.1, momentum=0.9, nesterov=True)
model.compile(loss='mean_squared_error', optimizer=sgd)

w0 = [w.copy() for w in model.get_weights()]
model.fit(X, y, epochs=20, batch_size=8, verbose=0)
changed = [not np.allclose(a, b) for a, b in zip(w0, model.get_weights())]
print("weights changed per variable:", changed)
print("predictions:", model.predict(X, verbose=0).ravel())
