# source: https://github.com/keras-team/keras/issues/19244 (mixed precision in a custom loop, a float32 output layer, no scale_loss: the hidden layers' float16 gradients are exactly 0)
# expect: cause=underflow line=22
import keras
import numpy as np
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_float16")
encoder = keras.Sequential([keras.Input((24,)), keras.layers.Dense(48, activation="tanh"),
                            keras.layers.Dense(48, activation="tanh"),
                            keras.layers.Dense(1, dtype="float32")])  # the output in float32, as the guide says
keras.mixed_precision.set_global_policy("float32")
optimizer = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam(1e-4))
head = encoder.layers[-1]
head.kernel.assign(head.kernel * 1e-3)  # fine-tuning a model that already fits: small residuals

data = np.random.default_rng(3).normal(size=(2048, 24)).astype("float32")
features = tf.constant(data)
targets = tf.zeros((2048, 1))

with tf.GradientTape() as tape:
    predictions = encoder(features, training=True)
    loss = 1e-2 * tf.reduce_mean(tf.square(predictions - targets))
grads = tape.gradient(loss, encoder.trainable_variables)  # the loss was never passed through optimizer.scale_loss
optimizer.apply_gradients(zip(grads, encoder.trainable_variables))
print([int(tf.math.count_nonzero(g)) for g in grads])
