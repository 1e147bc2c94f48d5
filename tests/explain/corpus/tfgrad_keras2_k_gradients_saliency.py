# source: https://github.com/tensorflow/tensorflow/issues/44813 (keras.backend.gradients to visualise a CNN: "tf.gradients is not supported when eager execution is enabled")
# keras: 2
# expect: cause=tf-gradients-eager line=14
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import backend as K

model = keras.Sequential([keras.layers.Conv2D(4, 3, input_shape=(8, 8, 3)), keras.layers.GlobalAveragePooling2D()])
image = tf.random.uniform((1, 8, 8, 3))
with tf.GradientTape() as tape:
    tape.watch(image)
    loss = K.mean(model(image)[:, 1])
try:
    grads = K.gradients(loss, image)[0]
except RuntimeError as error:
    print(error)
