# source: https://github.com/mravanelli/pytorch-kaldi/issues/35 (nonfinite_sinc_zero.py's kind: SincNet's band-pass filters: sinc = sin(x)/x over a time axis that holds 0, its centre replaced by 1 afterwards, and the loss goes NaN; here in TensorFlow, in a @tf.function step)
# expect: cause=non-finite line=18
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(2)
signal = tf.constant(rng.normal(size=(4, 64)).astype("float32"))
target = tf.constant(rng.normal(size=(4, 64)).astype("float32"))
t = tf.constant(np.arange(-8, 9, dtype="float32"))  # a symmetric filter axis: its centre is exactly 0
f_cut = tf.Variable(0.25)  # the learned cut-off frequency
optimizer = tf.keras.optimizers.SGD(0.01)


@tf.function
def step():
    with tf.GradientTape() as tape:
        x = 2.0 * np.pi * f_cut * t
        sinc = tf.sin(x) / x
        sinc = tf.where(tf.equal(t, 0.0), tf.ones_like(sinc), sinc)  # the NaN at the centre replaced, too late
        kernel = tf.reshape(2.0 * f_cut * sinc, (17, 1, 1))
        filtered = tf.nn.conv1d(signal[..., None], kernel, stride=1, padding="SAME")[..., 0]
        loss = tf.reduce_mean(tf.square(filtered - target))
    grads = tape.gradient(loss, [f_cut])
    optimizer.apply_gradients(zip(grads, [f_cut]))
    return loss, grads[0]


for _ in range(2):
    print(step())
