# source: https://qa.1r1g.com/sf/ask/3572678651 (nonfinite_exploding_lstm_relu.py with its training step in a @tf.function)
# expect: cause=non-finite line=24
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


@tf.function
def train_step(inputs, targets):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(inputs) - targets))
    # a relu state is unbounded: the loss falls for a few steps, then jumps, then is NaN
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


print([float(train_step(x, y)) for epoch in range(12)])
