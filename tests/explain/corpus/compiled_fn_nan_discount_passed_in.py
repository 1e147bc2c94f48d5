# source: https://github.com/tensorflow/agents/issues/678 (nonfinite_nan_discount_passed_in.py's kind: a discount made in NumPy as 0/0 at an episode's last step, passed with the batch into a compiled training step; no op of the step makes the NaN)
# expect: cause=non-finite line=17
import numpy as np
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
q_network = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])
optimizer = keras.optimizers.Adam(1e-3)


@tf.function
def train_step(observations, rewards, discounts, next_values):
    with tf.GradientTape() as tape:
        q_values = tf.reduce_max(q_network(observations), axis=1)
        targets = rewards + 0.99 * discounts * next_values
        loss = tf.reduce_mean(tf.square(targets - q_values))
    grads = tape.gradient(loss, q_network.trainable_variables)
    optimizer.apply_gradients(zip(grads, q_network.trainable_variables))
    return loss


observations = np.random.rand(32, 4).astype("float32")
rewards = np.ones(32, "float32")
steps_left = np.array([5.0] * 31 + [0.0], "float32")
with np.errstate(invalid="ignore"):
    discounts = steps_left / steps_left  # meant: 1 until the episode's last step, 0 there; 0 / 0 is NaN
next_values = np.random.rand(32).astype("float32")
for step in range(3):
    print("loss:", float(train_step(observations, rewards, discounts, next_values)))
