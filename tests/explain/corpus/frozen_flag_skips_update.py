# source: https://github.com/tensorflow/agents/issues/300 (a Python flag switches learning on after the replay buffer's warm-up, read by the compiled step that gates its update: traced with False, the update is not in the graph, and the weights never move; every gradient looks fine)
# expect: cause=frozen-python-state line=21
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(9)
q_net = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
optimizer = keras.optimizers.Adam(1e-2)
optimizer.build(q_net.trainable_variables)
learning = False  # warm-up: collect experience only
states = tf.constant(np.random.normal(size=(32, 4)).astype("float32"))
targets = tf.constant(np.random.normal(size=(32, 2)).astype("float32"))


@tf.function
def train_step(s, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(q_net(s) - y))
    grads = tape.gradient(loss, q_net.trainable_variables)
    if learning:
        optimizer.apply_gradients(zip(grads, q_net.trainable_variables))
    return loss


for step in range(6):
    if step == 2:
        learning = True  # the buffer is full: learn from now on
    print(step, float(train_step(states, targets)))
