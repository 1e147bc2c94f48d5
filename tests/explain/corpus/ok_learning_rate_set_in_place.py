# source: https://github.com/tensorflow/tensorflow/issues/31323 (the workaround in the thread: set the optimizer's learning rate in place, a variable the compiled step reads at every call)
# expect: clean
import numpy as np
import tensorflow as tf
from tensorflow import keras

np.random.seed(0)
tf.random.set_seed(0)
current_lr = 0.0  # warm-up: frozen for the first step, then raised

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
opt = keras.optimizers.SGD(learning_rate=current_lr)
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
    opt.learning_rate = current_lr
print("weights changed:", not np.allclose(w0, model.layers[0].kernel.numpy()))
