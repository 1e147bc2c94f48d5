# source: https://jianshuapi.com/p/cc42a9a45a71 (zh: log(clip_by_value(softmax, 1e-8, max)) on logits so large that the labelled class's probability is 0: the clip's floor is what the loss reads, and nothing is learned)
# expect: cause=saturation line=17
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(9)
x = tf.constant(rng.random((16, 5)).astype("float32") * 10.0)
labels = tf.one_hot(np.full(16, 2), 3)
w = tf.Variable(np.array([[9.0, 9.0, -9.0]] * 5, np.float32))
b = tf.Variable(np.zeros(3, np.float32))


@tf.function
def step():
    with tf.GradientTape() as tape:
        probs = tf.nn.softmax(tf.matmul(x, w) + b)
        loss = -tf.reduce_sum(labels * tf.math.log(tf.clip_by_value(probs, 1e-8, tf.reduce_max(probs))))
    return loss, tape.gradient(loss, [w, b])


loss, (grad_w, grad_b) = step()
print("loss:", loss.numpy(), "gradient of w all zero:", not grad_w.numpy().any())
