# source: https://github.com/tensorflow/tensorflow/issues/118674 (XLA differentiates the branch a tf.where drops: a distance guarded by where is NaN under jit_compile=True, finite eagerly)
# expect: cause=non-finite line=19
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(5)
anchors = rng.normal(size=(32, 8)).astype("float32")
positives = anchors.copy()
positives[16:] += rng.normal(scale=0.3, size=(16, 8)).astype("float32")  # half the pairs are duplicates
projection = tf.Variable(rng.normal(scale=0.2, size=(8, 4)).astype("float32"))
optimizer = tf.keras.optimizers.SGD(0.05)


@tf.function(jit_compile=True)
def contrastive_step(a, p):
    with tf.GradientTape() as tape:
        diff = tf.matmul(a, projection) - tf.matmul(p, projection)
        squared = tf.reduce_sum(diff * diff, axis=1)
        distance = tf.where(squared > 0, tf.sqrt(squared), tf.zeros_like(squared))
        loss = tf.reduce_mean(tf.square(tf.maximum(1.0 - distance, 0.0)))
    grads = tape.gradient(loss, [projection])
    optimizer.apply_gradients(zip(grads, [projection]))
    return loss, grads[0]


for step in range(3):
    loss, grad = contrastive_step(anchors, positives)
    print(step, float(loss), bool(tf.reduce_all(tf.math.is_finite(grad))))
