# source: https://keras.io/guides/making_new_layers_and_models_via_subclassing/
# expect: clean
import keras
import numpy as np


class MLP(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(16, activation="relu")
        self.dropout = keras.layers.Dropout(0.2)
        self.out = keras.layers.Dense(3)

    def call(self, x, training=False):
        return self.out(self.dropout(self.hidden(x), training=training))


model = MLP()
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(np.random.rand(64, 8), np.random.randint(0, 3, 64), epochs=3, batch_size=16, verbose=0)
print("done")
