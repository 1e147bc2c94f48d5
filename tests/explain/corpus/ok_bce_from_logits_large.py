# source: https://github.com/keras-team/keras/issues/9247 (the stable form: the loss computed from the logits)
# expect: clean
import keras
import numpy as np
import tensorflow as tf

logits = tf.constant(np.array([100.0, -3.0, 0.5, -40.0, 20.0, 2.0], dtype="float32"))
labels = tf.constant(np.array([0.0, 0.0, 1.0, 1.0, 1.0, 1.0], dtype="float32"))
with tf.GradientTape() as tape:
    tape.watch(logits)
    loss = keras.losses.binary_crossentropy(labels, logits, from_logits=True)
print(tape.gradient(loss, logits))
