# source: https://qa.1r1g.com/sf/ask/3572678651 (an RNN of LSTM layers with relu activations: the loss is fine for 84 epochs, then NaN, and the model's output too; here one relu LSTM whose recurrent kernel starts with a gain above 1, trained with SGD until its gradients explode)
# expect: cause=non-finite line=23
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(3)
model = keras.Sequential([
    keras.Input((40, 8)),
    keras.layers.LSTM(32, activation="relu", recurrent_initializer=keras.initializers.Orthogonal(gain=2.5)),
    keras.layers.Dense(8),
])
rng = np.random.default_rng(4)
x = rng.random((16, 40, 8)).astype("float32")
y = (10 * rng.random((16, 8))).astype("float32")
optimizer = keras.optimizers.SGD(0.01)

losses = []
for epoch in range(12):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    # a relu state is unbounded: the loss falls for a few steps, then jumps, then is NaN
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    losses.append(float(loss))
print(losses)
