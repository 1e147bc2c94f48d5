# source: https://github.com/tensorflow/tensorflow/pull/38467
# expect: clean
import tensorflow as tf

y = tf.Variable([-1.0, 0.0, 4.0])
with tf.GradientTape() as tape:
    safe = tf.where(y > 0, y, tf.ones_like(y))
    out = tf.reduce_sum(tf.where(y > 0, tf.sqrt(safe), y))
print(tape.gradient(out, y))
