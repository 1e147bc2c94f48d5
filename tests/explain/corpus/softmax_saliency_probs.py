# source: https://github.com/tensorflow/tensorflow/issues/36596
# expect: cause=softmax-sum line=12
import keras
import tensorflow as tf

classifier = keras.Sequential([
    keras.Input((8, 8, 1)), keras.layers.Conv2D(4, 3, activation="relu"), keras.layers.Flatten(),
    keras.layers.Dense(5), keras.layers.Softmax()])
image = tf.random.uniform((2, 8, 8, 1))
with tf.GradientTape() as tape:
    tape.watch(image)
    probabilities = classifier(image)
saliency = tape.gradient(probabilities, image)
print(float(tf.reduce_max(tf.abs(saliency))))
