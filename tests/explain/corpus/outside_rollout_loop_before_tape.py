# source: https://github.com/keras-team/keras-io/issues/406 (the actor-critic example's episode loop run before the tape, which then records only the loss over the collected log-probabilities)
# expect: cause=outside-tape line=17
import numpy as np
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
inputs = keras.Input((4,))
common = keras.layers.Dense(16, activation="relu")(inputs)
model = keras.Model(inputs, [keras.layers.Dense(2, activation="softmax")(common), keras.layers.Dense(1)(common)])
optimizer = keras.optimizers.Adam(0.01)
rng = np.random.default_rng(0)

log_probs, values, rewards = [], [], []
state = rng.normal(size=(1, 4)).astype("float32")
for step in range(5):
    probs, value = model(state)
    action = int(rng.choice(2, p=np.squeeze(probs)))
    log_probs.append(tf.math.log(probs[0, action]))
    values.append(value[0, 0])
    rewards.append(1.0)
    state = rng.normal(size=(1, 4)).astype("float32")

with tf.GradientTape() as tape:
    returns = tf.constant(np.cumsum(rewards[::-1])[::-1], tf.float32)
    advantage = returns - tf.stack(values)
    loss = -tf.reduce_sum(tf.stack(log_probs) * tf.stop_gradient(advantage)) + tf.reduce_sum(advantage ** 2)
grads = tape.gradient(loss, model.trainable_variables)
print("grads:", [g is None for g in grads])
optimizer.apply_gradients(zip(grads, model.trainable_variables))
