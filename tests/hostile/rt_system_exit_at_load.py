# runtime: SystemExit raised by a decorator, i.e. while the cell is loaded
import tensorflow as tf


def leave(function):
    raise SystemExit("bye")


@leave
def per_class_gradients(model, inp):
    with tf.GradientTape() as tape:
        probs = model(inp, training=False)
    return tape.jacobian(probs, inp)[0, :, 0]
