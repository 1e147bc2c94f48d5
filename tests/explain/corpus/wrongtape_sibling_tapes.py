# source: https://github.com/tensorflow/tensorflow/issues/34335
# expect: cause=wrong-tape line=12
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
x = tf.random.normal((4, 2))
with tf.GradientTape() as outer_tape:
    features = model(x)
with tf.GradientTape() as inner_tape:
    inner_tape.watch(features)
    loss = tf.reduce_sum(tf.square(features))
grads = outer_tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
