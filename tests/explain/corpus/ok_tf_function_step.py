# source: https://www.tensorflow.org/guide/basic_training_loops
# expect: clean
import tensorflow as tf

w = tf.Variable(5.0)
b = tf.Variable(0.0)
x = tf.random.normal((100,))
y = 3.0 * x + 2.0


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(y - (w * x + b)))
    dw, db = tape.gradient(loss, [w, b])
    w.assign_sub(0.1 * dw)
    b.assign_sub(0.1 * db)
    return loss


for epoch in range(5):
    loss = train_step(x, y)
print(loss.numpy())
