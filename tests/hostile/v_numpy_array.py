# values: the right numbers as a numpy array
import tensorflow as tf


def per_class_gradients(model, inp):
    with tf.GradientTape() as tape:
        probs = model(inp, training=False)
    return tape.jacobian(probs, inp)[0, :, 0].numpy()
