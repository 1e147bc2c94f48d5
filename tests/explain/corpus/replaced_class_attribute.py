# source: https://www.tensorflow.org/guide/autodiff ("Replaced a variable with a tensor"), in the hand-written model class of a linear regression: the update rebinds the attribute
# expect: cause=variable-replaced line=24
import tensorflow as tf


class LinearRegression:
    def __init__(self):
        self.w = tf.Variable(tf.zeros((3, 1)))
        self.b = tf.Variable(0.0)

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


tf.random.set_seed(12)
x = tf.random.normal((20, 3))
y = tf.matmul(x, tf.constant([[1.0], [-2.0], [0.5]])) + 0.3
model = LinearRegression()
for epoch in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    dw, db = tape.gradient(loss, [model.w, model.b])
    print(epoch, float(loss), dw is None, db is None)
    model.w = model.w - 0.1 * dw
    model.b = model.b - 0.1 * db
