# source: https://github.com/openai/baselines/issues/105 (tf.stop_gradient on the target Q values: the target is a constant for the update)
# expect: clean
import keras
import tensorflow as tf

q_net = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
optimizer = keras.optimizers.Adam(1e-3)
states, next_states = tf.random.normal((8, 4)), tf.random.normal((8, 4))
actions = tf.constant([0, 1, 1, 0, 1, 0, 0, 1])
rewards, done = tf.random.normal((8,)), tf.zeros((8,))
for step in range(3):
    with tf.GradientTape() as tape:
        q = tf.reduce_sum(q_net(states) * tf.one_hot(actions, 2), axis=1)
        # one network for both: the bootstrapped target must not be trained towards the prediction
        target = tf.stop_gradient(rewards + 0.99 * (1.0 - done) * tf.reduce_max(q_net(next_states), axis=1))
        loss = tf.reduce_mean(tf.square(target - q))
    grads = tape.gradient(loss, q_net.trainable_variables)
    optimizer.apply_gradients(zip(grads, q_net.trainable_variables))
