# source: https://github.com/keras-team/keras/issues/15479 (under the mixed_float16 policy every gradient of a deep model came back zeros, while the same model in float32 trained; here the depth is a stack of sigmoid layers, whose slopes of at most 1/4 shrink the backward pass's float16 values below the smallest subnormal before they reach the first kernel)
# expect: cause=underflow line=24
import keras
import numpy as np
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_float16")
keras.utils.set_random_seed(3)

rng = np.random.default_rng(3)
features = rng.normal(size=(64, 12)).astype("float32")
labels = (features[:, :2].sum(axis=1, keepdims=True) > 0).astype("float32")

stack = [keras.layers.Dense(48, activation="sigmoid") for _ in range(10)]
model = keras.Sequential([keras.Input(shape=(12,))] + stack + [keras.layers.Dense(1, dtype="float32")])
keras.mixed_precision.set_global_policy("float32")  # the layers keep the policy they were made with
loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
optimizer = keras.optimizers.SGD(learning_rate=0.05)


def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, grads


for step in range(3):
    loss, grads = train_step(features, labels)
    print("step", step, "loss", float(loss), "first kernel max |g|", float(tf.reduce_max(tf.abs(grads[0]))))
