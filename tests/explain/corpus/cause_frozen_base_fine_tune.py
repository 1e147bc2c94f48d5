# source: https://keras.io/guides/transfer_learning/ (base_model.trainable = False for the first phase; the fine-tuning phase asks for the base's trainable weights without unfreezing it)
# expect: cause=unwatched line=10
import keras
import tensorflow as tf

keras.utils.set_random_seed(5)
base = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu")], name="base")
head = keras.layers.Dense(1)
model = keras.Sequential([base, head])
base.trainable = False  # phase one: train the head only
x = tf.random.normal((16, 6))
y = tf.random.normal((16, 1))
# phase two, fine-tuning the base: it was never unfrozen, so its trainable_variables is empty
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
grads = tape.gradient(loss, base.trainable_variables)
print(len(grads))
