# source: https://github.com/tensorflow/tensorflow/issues/54417 (the vanishing dh_t/dh_0 is real, not a bug)
# expect: clean
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
rnn = keras.layers.SimpleRNN(8, return_sequences=True)
x = tf.random.normal((2, 60, 3))
h0 = tf.random.normal((2, 8))
with tf.GradientTape(persistent=True) as tape:
    tape.watch(h0)
    states = rnn(x, initial_state=h0)
    last = states[:, -1, :]
g = tape.gradient(last, h0)
print(float(tf.reduce_max(tf.abs(g))))
