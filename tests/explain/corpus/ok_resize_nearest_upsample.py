# source: https://github.com/tensorflow/tfjs/issues/159 ("Cannot compute gradient: gradient function not found for resizeNearestNeighbor", needed to train UpSampling2D; in TensorFlow itself nearest-neighbour resizing has a gradient)
# expect: clean
import keras
import tensorflow as tf

keras.utils.set_random_seed(13)
model = keras.Sequential([keras.Input((4, 4, 2)), keras.layers.Conv2D(2, 3, padding="same")])
x = tf.random.normal((2, 4, 4, 2))
target = tf.random.normal((2, 8, 8, 2))
with tf.GradientTape() as tape:
    upsampled = tf.image.resize(model(x), (8, 8), method="nearest")
    loss = tf.reduce_mean(tf.square(upsampled - target))
print([g.shape for g in tape.gradient(loss, model.trainable_variables)])
