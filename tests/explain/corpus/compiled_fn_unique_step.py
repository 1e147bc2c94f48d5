# source: https://github.com/apache/mxnet/issues/18074 (nograd_unique_values.py's kind: "Unique has not registered the gradient": unique inside a compiled forward pass; here TensorFlow's tf.unique in a @tf.function step)
# expect: cause=no-gradient-op line=13
import tensorflow as tf

keys = tf.Variable([0.5, 1.5, 0.5, 2.5])
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def step():
    with tf.GradientTape() as tape:
        # each distinct key once: the de-duplicated values feed the loss
        distinct, _ = tf.unique(keys)
        loss = tf.reduce_sum(distinct)
    return tape.gradient(loss, keys)


try:
    print(step())
except LookupError as error:
    print("gradient failed:", error)
