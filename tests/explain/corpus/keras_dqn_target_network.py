# source: https://github.com/keras-rl/keras-rl/issues/315 (which of the two Q networks a loss really trains)
# expect: cause=not-used line=21
# expect-keras: cause=not-used line=21
import keras
import numpy as np
import tensorflow as tf


def q_network():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])


online, target = q_network(), q_network()
optimizer = keras.optimizers.Adam(1e-3)
states = np.random.rand(32, 4).astype("float32")
actions = np.random.randint(0, 2, size=32)
returns = np.random.rand(32).astype("float32")
with tf.GradientTape() as tape:
    q_values = target(states)  # the frozen copy instead of the network being trained
    q_taken = tf.reduce_sum(q_values * tf.one_hot(actions, 2), axis=1)
    loss = tf.reduce_mean(tf.square(returns - q_taken))
grads = tape.gradient(loss, online.trainable_variables)
try:
    optimizer.apply_gradients(zip(grads, online.trainable_variables))
except ValueError as error:
    print("update failed:", error)
