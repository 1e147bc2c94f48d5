# source: https://github.com/keras-team/keras/issues/15836 ("model.set_weights() breaks the gradient": the weights scaled by a learned rate, set into the learner, then its loss differentiated)
# expect: cause=state-breaks-path line=15
import keras
import tensorflow as tf

keras.utils.set_random_seed(6)
learner = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
x = tf.random.normal((8, 3))
y = tf.random.normal((8, 1))
rate = tf.constant(0.1)
with tf.GradientTape() as tape:
    tape.watch(rate)
    new_weights = [w * (1.0 - rate) for w in learner.weights]
    # copied into the learner's variables: the loss below reads them, not new_weights
    learner.set_weights(new_weights)
    loss = tf.reduce_mean(tf.square(learner(x) - y))
print(tape.gradient(loss, rate))
