# source: https://github.com/tensorflow/tensorflow/issues/54417 (seed 000), https://github.com/keras-team/keras/issues/10965
# keras: 2
# expect: cause=state-breaks-path line=22
import numpy as np
import tensorflow as tf
from tensorflow import keras

batch_size, input_length, input_dim, output_dim = 8, 5, 50, 16
inp = keras.Input(batch_shape=(batch_size, input_length), name="input")
emb_out = keras.layers.Embedding(input_dim, output_dim, trainable=False, name="embedding")(inp)
rnn = keras.layers.SimpleRNN(32, return_sequences=True, stateful=True, name="simpleRNN")
h0 = tf.convert_to_tensor(np.random.uniform(size=(batch_size, 32)).astype(np.float32))
model_rnn = keras.Model(inputs=inp, outputs=rnn(emb_out, initial_state=h0))
embedding_layer = model_rnn.layers[1]
rnn_layer = model_rnn.layers[2]
x_batch_train = np.random.randint(0, input_dim, size=(batch_size, input_length))
grads_allsteps = []
for t in range(input_length):
    with tf.GradientTape() as tape:
        tape.watch(h0)
        et = embedding_layer(x_batch_train)
        states = rnn_layer(et, initial_state=h0)
        ht = states[:, t, :]
    grad_t = tape.gradient(ht, h0)
    grads_allsteps.append(grad_t)
print([g is None for g in grads_allsteps])
