# source: https://qa.1r1g.com/sf/ask/3426577661 (nonfinite_handwritten_bce_log_train_on_batch.py's kind: a hand-written binary cross-entropy under fit, fine for a few steps until a large learning rate drives a sigmoid to exactly 0 or 1)
# expect: cause=non-finite line=14
import numpy as np
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
x = (np.random.rand(128, 8).astype("float32") - 0.5) * 40.0
y = (x.sum(axis=1, keepdims=True) > 0).astype("float32")
y[:16] = 1.0 - y[:16]  # a few labels the model cannot fit


def binary_cross_entropy(y_true, y_pred):
    per_row = -(y_true * tf.math.log(y_pred) + (1 - y_true) * tf.math.log(1 - y_pred))
    return tf.reduce_mean(per_row)


model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.Adam(0.05), loss=binary_cross_entropy)
history = model.fit(x, y, epochs=5, batch_size=32, verbose=0)
print("loss per epoch:", history.history["loss"])
