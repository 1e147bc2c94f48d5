# source: https://github.com/tensorflow/tensorflow/issues/54417 (seed 000 under Keras 3, initial_state honoured)
# expect: clean
import keras
import numpy as np
import tensorflow as tf

batch_size, input_length = 4, 5
embedding = keras.layers.Embedding(30, 8)
rnn = keras.layers.SimpleRNN(6, return_sequences=True)
h0 = tf.convert_to_tensor(np.random.uniform(size=(batch_size, 6)).astype(np.float32))
x_batch = np.random.randint(0, 30, size=(batch_size, input_length))
with tf.GradientTape() as tape:
    tape.watch(h0)
    states = rnn(embedding(x_batch), initial_state=h0)
jac = tape.batch_jacobian(states, h0)
print(jac.shape)
