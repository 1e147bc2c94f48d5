# source: https://github.com/tensorflow/tensorflow/issues/9522 (two-step fine-tuning: the last layer alone for the first steps, then every variable; in TF2 a Python flag read by the @tf.function step chooses the list, and the step traced while it was False never trains the body)
# expect: cause=frozen-python-state line=20
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(7)
x = np.random.normal(size=(128, 6)).astype("float32")
y = (np.tanh(x[:, :1]) - 0.3 * x[:, 2:3]).astype("float32")
body = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="tanh")])
last = keras.Sequential([keras.Input((16,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-2)
finetune_all = False  # first n steps: the last layer only


@tf.function
def train_step(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(yb - last(body(xb))))
    if finetune_all:
        var_list = body.trainable_variables + last.trainable_variables
    else:
        var_list = last.trainable_variables
    grads = tape.gradient(loss, var_list)
    optimizer.apply_gradients(zip(grads, var_list))
    return loss


start = body.layers[0].kernel.numpy().copy()
for step in range(8):
    if step == 4:
        finetune_all = True  # after n steps: fine-tune the whole network
    loss = train_step(x, y)
print("body moved:", float(np.abs(body.layers[0].kernel.numpy() - start).max()))
