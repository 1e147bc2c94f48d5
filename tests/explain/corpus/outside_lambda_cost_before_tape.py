# source: https://github.com/tensorflow/tensorflow/issues/42167 (the cost computed once before the tape, and handed to it through a lambda that only returns it)
# expect: cause=outside-tape line=6
import tensorflow as tf

y = tf.Variable([1.0, 2.0, 3.0], name="y")
cost = -tf.reduce_mean(tf.reduce_sum(tf.math.log(y), axis=0))

loss = lambda: cost  # noqa: E731 - as the report wrote it

optimizer = tf.keras.optimizers.Adam(0.5)
with tf.GradientTape() as tape:
    loss_value = loss()
grads = tape.gradient(loss_value, [y])
print("loss:", float(loss_value), "gradients:", grads)
