# source: https://github.com/keras-team/keras/issues/9664 (binary_crossentropy on a sigmoid output: gradient 0 for large logits)
# expect: cause=saturation line=11
import keras
import numpy as np
import tensorflow as tf

logits = tf.constant(np.array([100.0, -3.0, 0.5, -40.0, 20.0, 2.0], dtype="float32"))
labels = tf.constant(np.array([0.0, 0.0, 1.0, 1.0, 0.0, 1.0], dtype="float32"))
with tf.GradientTape() as tape:
    tape.watch(logits)
    probs = tf.sigmoid(logits)
    loss = keras.losses.binary_crossentropy(labels, probs)
print(tape.gradient(loss, logits))
