# source: https://github.com/jacobgil/keras-grad-cam/issues/14 (Grad-CAM on the sum of a softmax layer's outputs: every gradient is zero, the classes' probabilities always add up to 1)
# expect: cause=softmax-sum line=17
import keras
import numpy as np
import tensorflow as tf

inputs = keras.Input((12, 12, 3))
features = keras.layers.Conv2D(4, 3, activation="relu")(inputs)
pooled = keras.layers.GlobalAveragePooling2D()(features)
scores = keras.layers.Dense(6, activation="softmax")(pooled)
cam_model = keras.Model(inputs, [features, scores])
image = tf.constant(np.random.default_rng(5).uniform(size=(1, 12, 12, 3)), tf.float32)

with tf.GradientTape() as tape:
    maps, probabilities = cam_model(image)
    tape.watch(maps)
    score = tf.reduce_sum(probabilities)
weights = tape.gradient(score, maps)
print(float(tf.reduce_max(tf.abs(weights))))
