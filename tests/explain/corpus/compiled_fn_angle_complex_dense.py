# source: https://github.com/NEGU93/cvnn/issues/12 (nonfinite_angle_zero_prediction.py's kind: a one-unit complex dense layer, a zero input sample, a loss comparing the angles of input and output: NaN gradients; here in a @tf.function step)
# expect: cause=non-finite line=17
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(1)
w = tf.Variable(tf.complex(rng.normal(size=(1, 1)).astype("float32"), rng.normal(size=(1, 1)).astype("float32")))
x = tf.zeros((1, 1), tf.complex64)  # the single "zero" sample
optimizer = tf.keras.optimizers.SGD(0.01)


@tf.function
def step():
    with tf.GradientTape() as tape:
        out = tf.matmul(x, w)
        # a reconstruction loss on the angles: the loss is 0, the angle of 0 + 0i has no slope
        loss = tf.reduce_mean(tf.square(tf.math.angle(x) - tf.math.angle(out)))
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return grads[0]


for _ in range(2):
    print(step().numpy())
