# source: https://github.com/lululxvi/deepxde/issues/510 (an inverse reaction-diffusion problem: the reaction term written with np.exp; the rate gets no gradient, and nor does the output layer's bias, which reaches the residual only through that term, as the time derivatives do not read it)
# expect: cause=leaves-tensorflow line=20
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(7)
net = keras.Sequential([keras.Input((2,)), keras.layers.Dense(16, activation="tanh"), keras.layers.Dense(2)])
rate = tf.Variable(2.0, name="rate")
optimizer = keras.optimizers.Adam(1e-3)
points = tf.constant(np.random.uniform(size=(64, 2)).astype("float32"))  # (t, x)
for step in range(2):
    with tf.GradientTape() as tape:
        with tf.GradientTape(persistent=True) as inner:
            inner.watch(points)
            u = net(points)
            a, b = u[:, :1], u[:, 1:]
        a_t = inner.gradient(a, points)[:, :1]
        b_t = inner.gradient(b, points)[:, :1]
        reaction = np.exp(rate * (a - b)) - 1.0
        residual = tf.reduce_mean(tf.square(a_t + 0.1 * reaction)) + tf.reduce_mean(tf.square(b_t - 0.1 * reaction))
    variables = net.trainable_variables + [rate]
    grads = tape.gradient(residual, variables)
    print(step, float(residual), [g is None for g in grads])
    optimizer.apply_gradients((g, v) for g, v in zip(grads, variables) if g is not None)
