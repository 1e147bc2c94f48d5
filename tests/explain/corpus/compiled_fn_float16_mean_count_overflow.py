# source: https://github.com/tensorflow/tensorflow/issues/56890 (underflow_float16_mean_count_overflow.py with its step compiled by @tf.function)
# expect: cause=underflow line=23
import keras
import numpy as np
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_float16")
keras.utils.set_random_seed(12)
inputs = keras.Input((64, 64, 3))
refined = keras.layers.Conv2D(3, 3, padding="same")(keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs))
model = keras.Model(inputs, keras.layers.Add()([inputs, refined]))
keras.mixed_precision.set_global_policy("float32")  # the layers keep the policy they were made with
optimizer = keras.optimizers.Adam(1e-3)
rng = np.random.default_rng(12)
clean = rng.random((6, 64, 64, 3)).astype("float32")  # 73728 values a batch: more than float16's 65504
noisy = clean + rng.normal(0.0, 0.05, clean.shape).astype("float32")


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        restored = model(x, training=True)
        loss = tf.reduce_mean(tf.square(restored - tf.cast(y, restored.dtype)))  # averaged in float16
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, grads


for step in range(2):
    loss, grads = train_step(noisy, clean)
    print(step, float(loss), [float(tf.reduce_max(tf.abs(g))) for g in grads])
