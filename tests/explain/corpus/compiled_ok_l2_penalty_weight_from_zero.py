# source: https://github.com/tensorflow/tensorflow/issues/43631 (two losses from one forward pass in a compiled step, one of them an L2 penalty on a bias that starts at 0: the penalty's gradient is exactly 0 at the first step, the minimum of the penalty, and the program trains normally)
# expect: clean
import numpy as np
import tensorflow as tf

scale = tf.Variable(tf.ones(6))
shift = tf.Variable(tf.zeros(6))  # exactly at the penalty's minimum when the first step runs
optimizer = tf.keras.optimizers.SGD(0.05)
target = tf.constant(np.linspace(-1.0, 1.0, 6).astype("float32"))


@tf.function
def train_step():
    with tf.GradientTape(persistent=True) as tape:
        fit_loss = tf.reduce_sum(tf.square(scale * 2.0 + shift - target))
        penalty = 0.1 * tf.reduce_sum(tf.square(shift))
    fit_grads = tape.gradient(fit_loss, [scale, shift])
    penalty_grads = tape.gradient(penalty, [shift])
    del tape
    optimizer.apply_gradients(zip(fit_grads, [scale, shift]))
    optimizer.apply_gradients(zip(penalty_grads, [shift]))
    return fit_loss


for step in range(25):
    loss = train_step()
print("final loss:", float(loss))
