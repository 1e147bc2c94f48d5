# source: https://github.com/tensorflow/tensorflow/issues/30190 (a loss term computed in NumPy from the per-example losses)
# expect: cause=leaves-tensorflow line=17
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(3)])
optimizer = keras.optimizers.SGD(0.05)
ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)
features = np.random.rand(32, 4).astype("float32")
labels = np.random.randint(0, 3, size=32)
for step in range(3):
    with tf.GradientTape() as tape:
        per_example = ce(labels, model(features))
        # the spread of the losses should be small too, but it is computed in NumPy: the tape sees a constant
        loss = tf.reduce_mean(per_example) + \
            0.1 * tf.constant(np.std([float(v) for v in per_example]), dtype=tf.float32)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print(float(loss))
