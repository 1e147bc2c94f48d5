# source: https://github.com/dominic-z/python-tool-demo (trainable_variables is empty until the model is first called)
# expect: cause=not-used line=15
# expect-keras: cause=not-used line=15
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
variables = model.trainable_variables  # taken before the first call: the model has no weights yet
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
try:
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
except ValueError as error:
    print("training failed:", error)
