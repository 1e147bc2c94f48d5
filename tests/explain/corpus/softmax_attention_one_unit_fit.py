# source: https://newbetuts.com/42918446-how-to-add-an-attention-mechanism-in-keras (the attention block of the question without its Flatten: the softmax is taken over each step's one score, so every weight is 1 and the scoring layer gets no gradient)
# expect: cause=softmax-sum line=15
import keras
import numpy as np
from keras import layers

keras.utils.set_random_seed(5)
steps, units = 12, 16
x = np.random.normal(size=(256, steps, 4)).astype("float32")
y = (x[:, 3, 0] > 0).astype("float32")

tokens = keras.Input((steps, 4))
activations = layers.LSTM(units, return_sequences=True)(tokens)
attention = layers.Dense(1, activation="tanh", name="score")(activations)
attention = layers.Activation("softmax")(attention)
weighted = layers.Multiply()([activations, attention])
summary = layers.GlobalAveragePooling1D()(weighted)
probability = layers.Dense(1, activation="sigmoid")(summary)
model = keras.Model(tokens, probability)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, epochs=2, batch_size=32, verbose=0)
print("trained")
