# source: https://github.com/tensorflow/tensorflow/issues/54370 (a step with a GradientTape run by a MirroredStrategy: a variable the tape never records)
# expect: cause=not-used line=15
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
with strategy.scope():
    w = tf.Variable(2.0)
    shift = tf.Variable(0.5)
    optimizer = tf.keras.optimizers.SGD(0.1)
x = tf.constant([1.0, 2.0, 3.0])


def step(inputs):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * inputs)  # shift was meant to be added here
    # None for shift: the loss never reads it
    grads = tape.gradient(loss, [w, shift])
    return grads


grads = strategy.run(step, args=(x,))  # run eagerly: no tf.function of the user's
print([g is None for g in grads])
