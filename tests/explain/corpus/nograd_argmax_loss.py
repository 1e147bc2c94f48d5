# source: https://github.com/tensorflow/tensorflow/issues/1511
# expect: cause=no-gradient-op line=11
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
x = tf.random.normal((8, 5))
labels = tf.constant([0, 1, 2, 0, 1, 2, 0, 1])
with tf.GradientTape() as tape:
    logits = model(x)
    predicted = tf.argmax(logits, axis=1)
    loss = tf.reduce_mean(tf.cast(tf.not_equal(predicted, tf.cast(labels, tf.int64)), tf.float32))
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
