# source: https://testpy.hatenablog.com/entry/2017/05/08/003000 (a hand-written cross-entropy, -sum(Y_ * log(Y)), where Y = softmax(logits) was given a name first: once a probability rounds to exactly 0 its log is -inf, and the loss and every gradient turn NaN)
# expect: cause=non-finite line=17
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(3)
x = tf.constant(np.random.normal(size=(32, 8)).astype("float32"))
labels = tf.one_hot(np.random.randint(0, 5, size=32), 5)
w = tf.Variable(tf.random.normal((8, 5), stddev=40.0))  # large weights: a confident, saturated softmax
b = tf.Variable(tf.zeros(5))
optimizer = keras.optimizers.SGD(0.01)

for step in range(3):
    with tf.GradientTape() as tape:
        Y = tf.nn.softmax(tf.matmul(x, w) + b)
        cross_entropy = -tf.reduce_mean(tf.reduce_sum(labels * tf.math.log(Y), axis=1))
    grads = tape.gradient(cross_entropy, [w, b])
    optimizer.apply_gradients(zip(grads, [w, b]))
    print(step, float(cross_entropy), bool(tf.reduce_any(tf.math.is_nan(grads[0]))))
