# source: https://github.com/tensorflow/tensorflow/issues/31323 (a learning rate given to the optimizer as a Python function reading a global: inside a tf.function step it is called once, when traced, so the warm-up rate of 0 stays and the weights never change)
# expect: cause=frozen-python-state line=13
import numpy as np
import tensorflow as tf
from tensorflow import keras

np.random.seed(0)
tf.random.set_seed(0)
current_lr = 0.0  # warm-up: frozen for the first step, then raised


def lr_fn():
    return current_lr


model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
opt = keras.optimizers.SGD(learning_rate=lr_fn)
x = tf.constant(np.random.randn(32, 4).astype("float32"))
y = tf.constant(np.random.randn(32, 1).astype("float32"))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


w0 = model.layers[0].kernel.numpy().copy()
for step in range(5):
    train_step(x, y)
    current_lr = 0.1
print("weights changed:", not np.allclose(w0, model.layers[0].kernel.numpy()))
