# source: https://github.com/titu1994/Neural-Style-Transfer/issues/69
# expect: cause=tf-gradients-eager line=11
import tensorflow as tf

combination_image = tf.Variable(tf.random.uniform((1, 4, 4, 3)))
style = tf.random.uniform((1, 4, 4, 3))


def eval_loss_and_grads(x):
    loss = tf.reduce_sum(tf.square(x - style))
    grads = tf.gradients(loss, x)
    return loss, grads


try:
    eval_loss_and_grads(combination_image)
except RuntimeError as error:
    print("RuntimeError:", error)
