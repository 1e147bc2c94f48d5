# source: https://github.com/tensorflow/tensorflow/issues/36192 (values read with .numpy() inside the tape, for a log)
# expect: clean
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.05)
X = np.random.rand(40, 4).astype("float32")
Y = X.sum(axis=1, keepdims=True)
seen = []
for epoch in range(4):
    with tf.GradientTape() as tape:
        pred = model(X)
        seen.append(pred.numpy().mean())  # a log line: the value leaves, nothing of it comes back
        loss = 0.5 * tf.reduce_mean(tf.square(pred - Y)) + 1e-3 * tf.reduce_sum(model.layers[0].kernel ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print(len(seen))
