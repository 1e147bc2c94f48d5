# source: https://github.com/tensorflow/tensorflow/issues/31264
# expect: clean
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((28, 28)), keras.layers.Flatten(), keras.layers.Dense(10)])
loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
images = tf.random.uniform((4, 28, 28))
labels = tf.constant([1, 2, 3, 4])
with tf.GradientTape() as tape:
    tape.watch(images)
    loss = loss_object(labels, model(images))
grad = tape.gradient(loss, images)
adversarial = images + 0.01 * tf.sign(grad)
print(adversarial.shape)
