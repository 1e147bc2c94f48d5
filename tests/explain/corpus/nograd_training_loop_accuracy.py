# source: https://github.com/tensorflow/tensorflow/issues/43258
# expect: cause=no-gradient-op line=16
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
optimizer = keras.optimizers.Adam(1e-3)
x_train = np.random.rand(64, 10).astype("float32")
y_train = np.random.randint(0, 4, size=(64,))
dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(16)
for epoch in range(2):
    for x, y in dataset:
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            hits = tf.equal(tf.argmax(logits, -1), tf.cast(y, tf.int64))
            loss = 1.0 - tf.reduce_mean(tf.cast(hits, tf.float32))
        grads = tape.gradient(loss, model.trainable_variables)
        try:
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        except ValueError as error:
            print("epoch", epoch, str(error)[:40])
