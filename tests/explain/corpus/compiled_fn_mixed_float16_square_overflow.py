# source: https://github.com/keras-team/keras/issues/19155 (nonfinite_mixed_float16_square_overflow.py in a @tf.function step)
# expect: cause=non-finite line=21
# how: half_overflow
import keras
import numpy as np
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_float16")
net = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
opt = keras.optimizers.SGD(1e-4)
keras.mixed_precision.set_global_policy("float32")  # the layers made above keep theirs
x_train = np.random.uniform(400, 900, (64, 16)).astype("float32")
y_train = np.random.uniform(0, 1, (64, 1)).astype("float32")


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        out = net(x, training=True)
        y = tf.cast(y, out.dtype)
        loss = tf.reduce_sum((out - y) ** 2)
    grads = tape.gradient(loss, net.trainable_variables)
    opt.apply_gradients(zip(grads, net.trainable_variables))
    return loss


for epoch in range(3):
    print(epoch, float(train_step(x_train, y_train)))
