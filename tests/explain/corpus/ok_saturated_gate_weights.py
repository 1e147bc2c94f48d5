# source: https://github.com/keras-team/keras/issues/9664 (a sigmoid that saturates; here a gate, differentiated for its weights)
# expect: clean
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(16, 4)).astype("float32") * 30)
w_gate = tf.Variable(rng.normal(size=(4, 4)).astype("float32"))
w_out = tf.Variable(rng.normal(size=(4, 1)).astype("float32"))
for step in range(3):
    with tf.GradientTape() as tape:
        gate = tf.sigmoid(x @ w_gate)  # many entries sit at 0 or 1: their slope is ~0, as a gate's should be
        loss = tf.reduce_mean((gate * x) @ w_out)
    grads = tape.gradient(loss, [w_gate, w_out])
    for v, g in zip([w_gate, w_out], grads):
        v.assign_sub(0.001 * g)
print(float(loss))
