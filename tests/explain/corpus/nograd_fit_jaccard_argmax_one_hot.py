# source: https://github.com/Golbstein/Keras-segmentation-deeplab-v3.1/issues/6 (Jaccard loss on argmax'ed predictions)
# expect: cause=no-gradient-op line=13
import numpy as np
import tensorflow as tf
import keras

keras.utils.set_random_seed(0)
classes = 4


def jaccard_loss(y_true, y_pred):
    y_true = tf.one_hot(tf.cast(y_true[..., 0], tf.int32), classes)
    y_pred = tf.one_hot(tf.argmax(y_pred, axis=-1), classes)
    intersection = tf.reduce_sum(y_true * y_pred, axis=[1, 2])
    union = tf.reduce_sum(y_true + y_pred, axis=[1, 2]) - intersection
    return 1.0 - tf.reduce_mean((intersection + 1.0) / (union + 1.0))


model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(classes, 3, padding="same", activation="softmax")])
model.compile(optimizer="adam", loss=jaccard_loss)
x = np.random.rand(8, 8, 8, 3).astype("float32")
y = np.random.randint(0, classes, (8, 8, 8, 1)).astype("float32")
try:
    model.fit(x, y, epochs=1, verbose=0)
except ValueError as error:
    print("fit:", str(error).splitlines()[0])
