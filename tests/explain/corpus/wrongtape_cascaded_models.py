# source: https://github.com/tensorflow/tensorflow/issues/36540 ("Can't compute distributed gradient ... with GradientTape": two cascading models split over two tapes, the first tape asked for the loss only the second recorded)
# expect: cause=wrong-tape line=16
import keras
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(11)
x = tf.constant(rng.normal(size=(16, 8)), tf.float32)
y = tf.constant(rng.integers(0, 3, size=16))
model1 = keras.Sequential([keras.Input((8,)), keras.layers.Dense(6, activation="relu")])
model2 = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
with tf.GradientTape() as tape1:
    features = model1(x)
with tf.GradientTape() as tape2:
    logits = model2(features)
    loss = loss_fn(y, logits)
grads1 = tape1.gradient(loss, model1.trainable_variables)
grads2 = tape2.gradient(loss, model2.trainable_variables)
print([g is None for g in grads1], [g is None for g in grads2])
