# source: https://github.com/tensorflow/tensorflow/issues/36880 (the same mistake in a hand-written two-layer net: the last layer is applied to the input instead of the hidden activations, so the first layer's weights get None)
# expect: cause=not-used line=15
import tensorflow as tf

tf.random.set_seed(2)
w1 = tf.Variable(tf.random.normal((4, 8)), name="w1")
w2 = tf.Variable(tf.random.normal((4, 1)), name="w2")
x = tf.random.normal((10, 4))
y = tf.random.normal((10, 1))

with tf.GradientTape() as tape:
    out = tf.nn.relu(x @ w1)
    out = out * 0.5
    # the second layer was meant to take the hidden units (and w2 to be 8 x 1)
    out = x @ w2
    loss = tf.reduce_mean((out - y) ** 2)
dw1, dw2 = tape.gradient(loss, [w1, w2])
print("dw1:", dw1, "dw2 is None:", dw2 is None)
