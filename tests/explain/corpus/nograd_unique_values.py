# source: https://github.com/tensorflow/tensorflow/issues/36810 (tf.unique under a GradientTape: "LookupError: gradient registry has no entry for: Unique")
# expect: cause=no-gradient-op line=9
import tensorflow as tf

x = tf.Variable([1.0, 2.0, 2.0, 3.0, 3.0, 3.0])
with tf.GradientTape() as tape:
    scaled = x * 2.0
    # the distinct values: Unique has no gradient registered at all, so the gradient call raises
    distinct, _ = tf.unique(scaled)
    loss = tf.reduce_sum(tf.square(distinct))
print(tape.gradient(loss, x))
