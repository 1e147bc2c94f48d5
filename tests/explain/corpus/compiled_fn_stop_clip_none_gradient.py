# source: https://github.com/hkaggarwal/modl/issues/10 (stop_clip_none_gradient.py in a @tf.function step: clip_by_value of a None gradient)
# expect: cause=stop-gradient line=16
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(9)
encoder = tf.Variable(rng.normal(size=(6, 3)).astype("float32"))
head = tf.Variable(rng.normal(size=(3, 1)).astype("float32"))
optimizer = tf.keras.optimizers.Adam(0.01)


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        features = tf.matmul(x, encoder)
        fixed = tf.stop_gradient(features)  # the encoder is not to be trained here
        loss = tf.reduce_mean(tf.square(tf.matmul(fixed, head)))
    grads = tape.gradient(loss, [encoder, head])
    capped = [tf.clip_by_value(g, -1.0, 1.0) for g in grads]
    optimizer.apply_gradients(zip(capped, [encoder, head]))
    return loss


print(train_step(tf.constant(rng.normal(size=(5, 6)).astype("float32"))))
