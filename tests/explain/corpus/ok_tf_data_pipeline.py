# source: https://theneuralbase.com/tensorflow/learn/intermediate/when-custom-loops-beat-model-fit/
# expect: clean
import keras
import numpy as np
import tensorflow as tf

np.random.seed(42)
X_train = np.random.randn(100, 10).astype(np.float32)
y_train = np.random.randint(0, 2, (100,)).astype(np.int32)
dataset = tf.data.Dataset.from_tensor_slices((X_train, y_train)).map(lambda x, y: (x * 2.0, y)).batch(32)
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
optimizer = keras.optimizers.Adam()
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
for x, y in dataset:
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
print("ok")
