# source: https://github.com/tensorflow/tensorflow/issues/36192
# expect: clean
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.05)
X = np.random.rand(40, 4).astype("float32")
Y = X.sum(axis=1, keepdims=True)
history = []
for epoch in range(5):
    idx = np.random.permutation(40)[:16]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(X[idx]) - Y[idx]))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    history.append(loss.numpy())
    w_norm = np.linalg.norm(model.layers[0].kernel.numpy())
print(len(history), w_norm > 0)
