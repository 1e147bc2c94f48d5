# source: https://github.com/tensorflow/tensorflow/issues/36392 (the tape opened around strategy.run, not inside the replica function)
# expect: cause=outside-tape line=18
import keras
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    optimizer = keras.optimizers.SGD(0.1)
features = tf.random.normal((8, 4))
labels = tf.random.normal((8, 1))
batch = 8


def replica_loss(x, y):
    # runs in the replica's own thread: the tape opened by the caller does not see it
    per_example = tf.square(model(x) - y)
    return tf.reduce_sum(per_example) / batch


with tf.GradientTape() as tape:
    per_replica = strategy.run(replica_loss, args=(features, labels))
    loss = strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
