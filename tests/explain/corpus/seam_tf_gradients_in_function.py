# source: https://github.com/tensorflow/tensorflow/issues/47387 (tf.gradients kept inside a tf.function while migrating TF1 code: the gradient comes back None)
# expect: cause=not-used line=16
import tensorflow as tf

w = tf.Variable([[0.5], [-0.2]])
b = tf.Variable([0.1])
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
y = tf.constant([[1.0], [0.0]])


@tf.function
def loss_and_grads():
    prediction = tf.matmul(x, w)  # the bias was dropped in the migration
    loss = tf.reduce_mean(tf.square(prediction - y))
    # graph-only tf.gradients: None for b
    grads = tf.gradients(loss, [w, b])
    return loss, grads


loss, grads = loss_and_grads()
print(float(loss), [g is None for g in grads])
