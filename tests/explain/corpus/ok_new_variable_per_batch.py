# source: https://www.tensorflow.org/tutorials/generative/adversarial_fgsm (one gradient step on a fresh copy of each batch)
# expect: clean
import numpy as np
import tensorflow as tf

w = tf.constant(np.random.rand(6, 2).astype("float32"))
for batch in range(5):
    # a new variable per batch, each made from that batch's own values: a new problem each time, not a restart
    images = tf.Variable(np.random.rand(16, 6).astype("float32"))
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.softplus(images @ w))
    grad = tape.gradient(loss, images)
    images.assign_add(0.01 * tf.sign(grad))
print(float(loss))
