# source: https://github.com/titu1994/Neural-Style-Transfer/issues/69 (the answer: tf.gradients inside a graph)
# expect: clean
import tensorflow as tf

combination_image = tf.Variable(tf.random.uniform((1, 4, 4, 3)))
style = tf.random.uniform((1, 4, 4, 3))


@tf.function
def loss_and_grads(x):
    loss = tf.reduce_sum(tf.square(x - style))
    return loss, tf.gradients(loss, x)[0]


loss, grads = loss_and_grads(combination_image)
print(float(loss) > 0, grads.shape)
