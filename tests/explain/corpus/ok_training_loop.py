# source: https://keras.io/guides/writing_a_training_loop_from_scratch/
# expect: clean
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)])
optimizer = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
x_train = np.random.rand(64, 10).astype("float32")
y_train = np.random.randint(0, 3, size=(64,))
dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(64).batch(16)
for epoch in range(2):
    for step, (x, y) in enumerate(dataset):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
    print("epoch", epoch, "loss", float(loss))
