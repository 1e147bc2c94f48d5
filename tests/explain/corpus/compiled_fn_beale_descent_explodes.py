# source: https://python-pypi.developreference.com/article/19875603/How+to+find+minimum+of+a+function+with+TensorFlow (nonfinite_exploding_learning_rate.py's kind: Beale's function minimised from (3, 4) by plain gradient descent with a step too large, in a compiled step: the point flies off until a power overflows)
# expect: cause=non-finite line=16
import keras
import tensorflow as tf

x = tf.Variable(3.0)
y = tf.Variable(4.0)
optimizer = keras.optimizers.SGD(0.1)


@tf.function
def step():
    with tf.GradientTape() as tape:
        beale = tf.add_n([tf.square(1.5 - x + x * y), tf.square(2.25 - x + x * tf.square(y)),
                          tf.square(2.625 - x + x * tf.pow(y, 3))])
    grads = tape.gradient(beale, [x, y])
    optimizer.apply_gradients(zip(grads, [x, y]))
    return beale


for i in range(6):
    print(i, float(step()), float(x.numpy()), float(y.numpy()))
