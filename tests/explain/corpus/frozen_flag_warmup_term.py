# source: https://www.tensorflow.org/guide/function#depending_on_python_global_and_free_variables (a Python global read by a tf.function is read once, when traced: a denoising flag turned on after warm-up never corrupts the inputs, and the step trains the plain autoencoder to the end)
# expect: cause=frozen-python-state line=20
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(8)
encoder = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, activation="tanh")])
decoder = keras.Sequential([keras.Input((3,)), keras.layers.Dense(6)])
optimizer = keras.optimizers.Adam(1e-2)
variables = encoder.trainable_variables + decoder.trainable_variables
data = tf.constant(np.random.normal(size=(128, 6)).astype("float32"))
denoise = False  # warm-up: clean inputs first


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        corrupted = x
        if denoise:
            corrupted = x + 0.3 * tf.random.normal(tf.shape(x))
        loss = tf.reduce_mean(tf.square(decoder(encoder(corrupted)) - x))
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss


for epoch in range(4):
    if epoch == 2:
        denoise = True  # warm-up over: train on corrupted inputs
    print(epoch, float(train_step(data)))
