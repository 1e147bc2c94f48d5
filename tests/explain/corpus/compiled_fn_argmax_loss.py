# source: https://github.com/tensorflow/tensorflow/issues/1511 (nograd_argmax_loss.py in a @tf.function step)
# expect: cause=no-gradient-op line=15
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
x = tf.random.normal((8, 5))
labels = tf.constant([0, 1, 2, 0, 1, 2, 0, 1])


@tf.function
def step(x, labels):
    with tf.GradientTape() as tape:
        logits = model(x)
        predicted = tf.argmax(logits, axis=1)
        loss = tf.reduce_mean(tf.cast(tf.not_equal(predicted, tf.cast(labels, tf.int64)), tf.float32))
    return tape.gradient(loss, model.trainable_variables)


for _ in range(3):
    grads = step(x, labels)
print([g is None for g in grads])
