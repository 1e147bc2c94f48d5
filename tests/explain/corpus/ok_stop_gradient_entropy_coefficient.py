# source: https://github.com/hill-a/stable-baselines/issues/564 (SAC's stop_gradient "is not mandatory" where only some variables are updated)
# expect: clean
import keras
import tensorflow as tf

policy = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
log_alpha = tf.Variable(0.0)
target_entropy = -2.0
states = tf.random.normal((16, 3))
variables = [log_alpha] + policy.trainable_variables
for step in range(3):
    with tf.GradientTape() as tape:
        log_pi = tf.reduce_sum(tf.nn.log_softmax(policy(states)), axis=1)
        # the temperature's loss: the policy's log-probabilities are a constant here
        alpha_loss = -tf.reduce_mean(log_alpha * tf.stop_gradient(log_pi + target_entropy))
    grads = tape.gradient(alpha_loss, variables)
    log_alpha.assign_sub(0.01 * grads[0])  # only the temperature is updated by this loss
