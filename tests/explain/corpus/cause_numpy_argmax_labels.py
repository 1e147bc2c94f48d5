# source: https://github.com/keras-team/keras/issues/11157 ("argmax has None for gradients. Can you even define one?"; here np.argmax of the model's output inside the tape)
# expect: cause=no-gradient-op line=15
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(3)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3)])
x = tf.random.normal((12, 5))
labels = tf.constant(np.arange(12) % 3, tf.float32)
optimizer = keras.optimizers.SGD(0.1)
with tf.GradientTape() as tape:
    scores = model(x)
    # the predicted class: an index, which has no slope (staying in TensorFlow with tf.argmax would not help)
    predicted = np.argmax(scores, axis=1)
    loss = tf.reduce_mean(tf.square(tf.cast(predicted, tf.float32) - labels))
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
