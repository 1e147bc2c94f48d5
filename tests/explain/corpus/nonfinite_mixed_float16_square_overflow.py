# source: https://github.com/keras-team/keras/issues/19155 (mixed_float16: a squared error over 65504 without a float32 loss)
# expect: cause=non-finite line=18
# how: half_overflow
import keras
import numpy as np
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
keras.mixed_precision.set_global_policy("float32")  # the layers made above keep theirs
inputs = tf.constant(np.random.uniform(500, 1000, (32, 16)).astype("float32"))  # raw, unscaled features
targets = tf.constant(np.random.uniform(0, 1, (32, 1)).astype("float32"))

for step in range(2):
    with tf.GradientTape() as tape:
        predictions = model(inputs)
        loss = tf.reduce_sum(tf.square(predictions - tf.cast(targets, predictions.dtype)))
    grads = tape.gradient(loss, model.trainable_variables)
    print(step, float(loss), [bool(tf.reduce_all(tf.math.is_finite(g))) for g in grads])
