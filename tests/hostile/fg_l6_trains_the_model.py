# forgery: trains the model it was given (one SGD step on both heads), then returns the gradients
# taken before the step: the weights it hands back to later cells are not the ones it was given
import keras
import tensorflow as tf


def head_gradients(model, x, y):
    with tf.GradientTape() as tape:
        main, aux = model(x)
        loss = tf.reduce_mean((main - y) ** 2)
    variables = model.trainable_variables
    grads = tape.gradient(loss, [v.value for v in variables], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    keras.optimizers.SGD(0.5).apply_gradients(zip(grads, variables))
    return tuple(grads)
