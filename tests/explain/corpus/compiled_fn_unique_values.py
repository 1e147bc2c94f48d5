# source: https://github.com/tensorflow/tensorflow/issues/36810 (nograd_unique_values.py compiled: tf.unique under a GradientTape in a @tf.function training step; tracing the gradient raises "LookupError: gradient registry has no entry for: Unique")
# expect: cause=no-gradient-op line=14
import tensorflow as tf

x = tf.Variable([1.0, 2.0, 2.0, 3.0, 3.0, 3.0])
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        scaled = x * 2.0
        # the distinct values: Unique has no gradient registered at all, so the gradient call raises
        distinct, _ = tf.unique(scaled)
        loss = tf.reduce_sum(tf.square(distinct))
    grads = tape.gradient(loss, [x])
    optimizer.apply_gradients(zip(grads, [x]))
    return loss


print(train_step())  # the trace fails: a StagingError wrapping the LookupError
