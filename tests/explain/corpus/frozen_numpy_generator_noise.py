# source: https://www.tensorflow.org/guide/function#executing_python_side_effects (the guide: Python code such as a numpy random call runs only when the function is traced, so a compiled step reuses what it drew)
# expect: cause=frozen-python-state line=16
import numpy as np
import tensorflow as tf

noise = np.random.default_rng(0)
w = tf.Variable(tf.zeros([3, 1]))
x = tf.constant(noise.normal(size=(50, 3)), tf.float32)
y = x @ tf.constant([[1.0], [-2.0], [0.5]])


@tf.function
def noisy_step():
    with tf.GradientTape() as tape:
        # input noise for robustness, to be drawn anew at every step
        jitter = noise.normal(scale=0.1, size=(50, 3)).astype("float32")
        loss = tf.reduce_mean(tf.square((x + jitter) @ w - y))
    w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss


for step in range(5):
    noisy_step()
print(w.numpy().ravel())
