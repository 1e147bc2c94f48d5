# source: https://github.com/YunyaoCheng/books (a tf.function chapter: "np_random每次执行都是一样的结果", np.random in a tf.function gives the same result on every call)
# expect: cause=frozen-python-state line=15
import keras
import numpy as np
import tensorflow as tf

hidden = keras.layers.Dense(12, activation="tanh")
head = keras.layers.Dense(1)
model = keras.Sequential([keras.Input((5,)), hidden, head])
optimizer = keras.optimizers.SGD(0.05)


@tf.function
def train_step(x, y):
    keep = (np.random.rand(12) > 0.3).astype("float32")  # a dropout mask, meant to be new each step
    with tf.GradientTape() as tape:
        h = hidden(x) * keep / 0.7
        loss = tf.reduce_mean(tf.square(head(h) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


rng = np.random.default_rng(1)
for step in range(4):
    x = tf.constant(rng.normal(size=(16, 5)), tf.float32)
    print(float(train_step(x, tf.reduce_sum(x, axis=1, keepdims=True))))
