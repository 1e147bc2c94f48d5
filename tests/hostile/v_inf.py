# values: the right gradient plus inf
import numpy as np
import tensorflow as tf
import keras


def loss_gradient(model, inp, target):
    with tf.GradientTape() as tape:
        loss = keras.losses.categorical_crossentropy(target, model(inp, training=False))
    return tape.gradient(loss, inp) + np.inf
