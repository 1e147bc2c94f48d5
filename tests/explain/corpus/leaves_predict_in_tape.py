# source: https://github.com/tensorflow/tensorflow/issues/38751
# expect: cause=leaves-tensorflow line=10
import keras
import tensorflow as tf

encoder = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(4, 3), keras.layers.GlobalAveragePooling2D()])


def encode(img):
    return encoder.predict(img, verbose=0)


image = tf.Variable(tf.ones([1, 16, 16, 3]))
with tf.GradientTape() as tape:
    features = encode(image)
    loss = tf.reduce_sum(tf.square(features))
print(tape.gradient(loss, image))
