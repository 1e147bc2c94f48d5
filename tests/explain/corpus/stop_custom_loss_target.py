# source: https://github.com/tensorflow/tensorflow/issues/41528
# expect: cause=stop-gradient line=11
import tensorflow as tf

w = tf.Variable(tf.random.normal((3, 1)))
x = tf.random.normal((10, 3))
y = tf.random.normal((10, 1))


def loss_fn(y_true, y_pred):
    y_pred = tf.stop_gradient(y_pred)
    return tf.reduce_mean(tf.abs(y_true - y_pred))


with tf.GradientTape() as tape:
    loss = loss_fn(y, tf.matmul(x, w))
print(tape.gradient(loss, w))
