# source: https://newbe.dev/training-a-tf-keras-model-with-a-basic-low-level-tensorflow-training-loop-doesn-t-work
# expect: cause=stop-gradient line=10
import keras
import tensorflow as tf

q_net = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
states = tf.random.normal((8, 4))
targets = tf.random.normal((8, 2))
with tf.GradientTape() as tape:
    q_values = tf.stop_gradient(q_net(states))
    loss = tf.reduce_mean(tf.square(targets - q_values))
grads = tape.gradient(loss, q_net.trainable_variables)
print([g is None for g in grads])
