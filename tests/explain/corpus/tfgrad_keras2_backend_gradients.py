# source: https://github.com/tensorflow/tensorflow/issues/34235 (tf.keras.backend.gradients error in eager mode)
# keras: 2
# expect: cause=tf-gradients-eager line=12
import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.layers.Dense(4, input_shape=(3,)), keras.layers.Dense(1)])
x = tf.random.normal((2, 3))
loss = tf.reduce_mean(model(x))
try:
    # Keras 2's backend.gradients is tf.gradients: graph mode only
    grads = keras.backend.gradients(loss, model.trainable_weights)
except RuntimeError as error:
    print(error)
