# source: https://github.com/tensorflow/tensorflow/issues/72686 (the custom-training-loop tutorial under a MirroredStrategy, its step run by strategy.run; here the loss takes a norm at 0)
# expect: cause=non-finite line=18
import numpy as np
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
with strategy.scope():
    w = tf.Variable(np.zeros((4, 1), np.float32))
    optimizer = tf.keras.optimizers.SGD(0.1)
rng = np.random.default_rng(4)
x = tf.constant(rng.normal(size=(8, 4)), tf.float32)
y = tf.constant(np.zeros((8, 1)), tf.float32)


def step_fn(inputs, labels):
    with tf.GradientTape() as tape:
        error = tf.matmul(inputs, w) - labels
        loss = tf.norm(error)  # the norm of an all-zero error: its gradient is NaN
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return loss


@tf.function
def distributed_step(inputs, labels):
    per_replica = strategy.run(step_fn, args=(inputs, labels))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


for epoch in range(2):
    print(float(distributed_step(x, y)))
print(w.numpy().ravel())
