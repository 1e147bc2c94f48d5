# source: https://github.com/tensorflow/tensorflow/issues/42984
# expect: cause=leaves-tensorflow line=11
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4), keras.layers.Dense(1)])
batches = [(tf.random.normal((3, 2)), tf.random.normal((3, 1))) for _ in range(2)]
with tf.GradientTape() as tape:
    losses = []
    for x, y in batches:
        losses.append(float(tf.reduce_mean(tf.square(model(x) - y))))
    loss = tf.reduce_mean(losses)
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
