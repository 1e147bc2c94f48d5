# source: https://www.tensorflow.org/guide/advanced_autodiff
# expect: clean
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
tangent = tf.ones_like(x)
with tf.autodiff.ForwardAccumulator(x, tangent) as acc:
    y = tf.reduce_sum(tf.sin(x) * x)
print(acc.jvp(y))
w = tf.Variable([0.5, -0.5])
with tf.GradientTape() as tape:
    with tf.autodiff.ForwardAccumulator(w, tf.constant([1.0, 0.0])) as inner:
        out = tf.reduce_sum(w ** 3)
    slope = inner.jvp(out)
    loss = tf.reduce_sum(w ** 2)
print(tape.gradient(loss, w))
