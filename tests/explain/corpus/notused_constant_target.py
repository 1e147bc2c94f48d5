# source: https://github.com/tensorflow/tensorflow/issues/56968 (the target is a tf.constant: "make class_channel a differentiable output")
# expect: cause=not-used line=7
import tensorflow as tf

ones = tf.ones([1, 16, 16, 1], tf.float32)
with tf.GradientTape() as tape:
    class_channel = tf.constant([4.4328732], dtype=tf.float32)
grads = tape.gradient(class_channel, ones)
print("grads:", grads)
