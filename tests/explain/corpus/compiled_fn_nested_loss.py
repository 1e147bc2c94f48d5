# source: https://github.com/tensorflow/tensorflow/issues/41528 (stop_custom_loss_target.py with the loss a nested tf.function)
# expect: cause=stop-gradient line=12
import tensorflow as tf

w = tf.Variable(tf.random.normal((3, 1)))
x = tf.random.normal((10, 3))
y = tf.random.normal((10, 1))


@tf.function
def loss_fn(y_true, y_pred):
    y_pred = tf.stop_gradient(y_pred)
    return tf.reduce_mean(tf.abs(y_true - y_pred))


@tf.function
def step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, tf.matmul(x, w))
    return tape.gradient(loss, w)


for _ in range(3):
    print(step(x, y))
