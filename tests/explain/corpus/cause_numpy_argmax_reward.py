# source: https://github.com/google-deepmind/dm-haiku/issues/442 ("Zero Gradients after argmax"; the TensorFlow form: the action picked with np.argmax scores a reward)
# expect: cause=no-gradient-op line=13
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(2)
policy = tf.Variable(rng.normal(size=(4, 3)).astype("float32"))
states = tf.constant(rng.normal(size=(6, 4)), tf.float32)
rewards = tf.constant(rng.normal(size=(3,)), tf.float32)
with tf.GradientTape() as tape:
    logits = tf.matmul(states, policy)
    # the best action per state, as numpy indices
    actions = np.argmax(logits.numpy(), axis=1)
    total = tf.reduce_sum(tf.gather(rewards, actions))
grad = tape.gradient(total, policy)
print(grad)
