# source: https://github.com/veaba/tensorflow-docs/blob/master/docs/tf.compat/v1/train/experimental/MixedPrecisionLossScaleOptimizer.md ("loss scaling ... can help avoid numerical underflow in intermediate gradients when float16 tensors are used": a mixed-precision step in a tf.function with a plain optimizer, small residuals averaged over a big batch, every gradient exactly 0)
# expect: cause=underflow line=27
import numpy as np
import tensorflow as tf
import keras

keras.utils.set_random_seed(0)
keras.mixed_precision.set_global_policy("mixed_float16")

model = keras.Sequential([
    keras.Input(shape=(32,)),
    keras.layers.Dense(64, activation="tanh"),
    keras.layers.Dense(1),
    keras.layers.Activation("linear", dtype="float32"),
])
keras.mixed_precision.set_global_policy("float32")  # the layers made above keep theirs
optimizer = keras.optimizers.SGD(learning_rate=0.1)

x = tf.constant(np.random.rand(131072, 32).astype("float32"))   # one big batch
y_base = model(x)
y = y_base + 3e-4                      # small residuals, averaged over a big batch

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, grads

loss, grads = train_step(x, y)
print("loss:", float(loss))
print("max |grad| per variable:", [float(tf.reduce_max(tf.abs(g))) for g in grads])
