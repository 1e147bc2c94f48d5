# source: https://github.com/keras-team/keras/issues/9247 (probabilities clipped to [eps, 1 - eps] before the log)
# expect: cause=saturation line=12
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(3)
scores = tf.constant((rng.normal(size=32) * 25).astype("float32"))
labels = tf.constant((rng.random(32) > 0.5).astype("float32"))
with tf.GradientTape() as tape:
    tape.watch(scores)
    # clipped "for numerical stability": where the sigmoid sits at 0 or 1 the clip holds it and the slope is 0
    p = tf.clip_by_value(tf.sigmoid(scores), 1e-7, 1 - 1e-7)
    loss = tf.reduce_mean(-labels * tf.math.log(p) - (1 - labels) * tf.math.log(1 - p))
print(tape.gradient(loss, scores))
