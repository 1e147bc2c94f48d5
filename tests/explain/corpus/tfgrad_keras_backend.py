# source: https://github.com/fchollet/deep-learning-with-python-notebooks/issues/169
# expect: cause=tf-gradients-eager line=10
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3)])
dream = tf.random.uniform((1, 8, 8, 3))
loss = tf.reduce_mean(model(dream))
try:
    grads = tf.gradients(loss, dream)[0]
except RuntimeError as error:
    print(error)
