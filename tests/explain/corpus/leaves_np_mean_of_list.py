# source: https://github.com/tensorflow/tensorflow/issues/36596 (converting the loss to numpy before the gradient)
# expect: cause=leaves-tensorflow line=11
import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
batch = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    per_sample = [tf.reduce_sum(model(batch[i:i + 1]) ** 2) for i in range(4)]
    loss = np.mean(per_sample)
try:
    grads = tape.gradient(loss, model.trainable_variables)
except AttributeError as error:
    print("AttributeError:", error)
