# source: https://github.com/tensorflow/tensorflow/issues/32299
# expect: cause=state-breaks-path line=11
import keras
import numpy as np
import tensorflow as tf

rnn = keras.layers.GRU(4, return_sequences=True, stateful=True)
chunk1 = tf.Variable(np.random.rand(1, 3, 2).astype("float32"))
chunk2 = tf.constant(np.random.rand(1, 3, 2).astype("float32"))
with tf.GradientTape() as tape:
    out1 = rnn(chunk1)
    out2 = rnn(chunk2)
print(tape.gradient(out2, chunk1))
