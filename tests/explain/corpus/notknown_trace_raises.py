# source: https://github.com/tensorflow/tensorflow/issues/27565 (a @tf.function training step that raises while it is traced)
# expect: cause=not-known line=15
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(1)
w = tf.Variable(rng.normal(size=(3, 2)).astype("float32"))
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def train_one_step(batch):
    with tf.GradientTape() as tape:
        # the batch has 4 features, the weights expect 3: the trace raises before any gradient is asked for
        loss = tf.reduce_sum(tf.matmul(batch, w))
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return loss


print(train_one_step(tf.constant(rng.normal(size=(8, 4)).astype("float32"))))
