# source: https://github.com/tensorflow/tensorflow/issues/98779 (a DQN learning step under @tf.function whose target used a NumPy ufunc: "Cannot convert a symbolic Tensor (sub_1:0) to a numpy array")
# expect: cause=leaves-tensorflow line=18
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(3)
GAMMA = 0.995
q_network = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
target_q_network = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
optimizer = keras.optimizers.Adam(1e-3)


def compute_loss(experiences, gamma, q_network, target_q_network):
    states, actions, rewards, next_states, done_vals = experiences
    max_qsa = tf.reduce_max(target_q_network(next_states), axis=-1)
    # the target: reward plus the discounted best next value, unless the episode ended
    y_targets = rewards + np.multiply(gamma * max_qsa, (1 - done_vals))
    q_values = q_network(states)
    q_values = tf.gather_nd(q_values, tf.stack([tf.range(q_values.shape[0]), tf.cast(actions, tf.int32)], axis=1))
    return keras.losses.mean_squared_error(y_targets, q_values)


@tf.function
def agent_learn(experiences, gamma):
    with tf.GradientTape() as tape:
        loss = compute_loss(experiences, gamma, q_network, target_q_network)
    gradients = tape.gradient(loss, q_network.trainable_variables)
    optimizer.apply_gradients(zip(gradients, q_network.trainable_variables))


rng = np.random.default_rng(3)
experiences = (tf.constant(rng.normal(size=(64, 8)), tf.float32), tf.constant(rng.integers(0, 4, 64), tf.float32),
               tf.constant(rng.normal(size=64), tf.float32), tf.constant(rng.normal(size=(64, 8)), tf.float32),
               tf.constant(rng.integers(0, 2, 64), tf.float32))
agent_learn(experiences, GAMMA)
