# source: https://github.com/dominic-z/python-tool-demo (trainable_variables is empty until the model is first called)
# expect: cause=not-used line=13
import keras
import tensorflow as tf

model = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
params = model.trainable_variables  # read before the first call: no weights yet
x = tf.random.normal((10, 3))
y = tf.random.normal((10, 1))
for epoch in range(3):
    with tf.GradientTape() as tape:
        # the model is built here, on its first call; `params` stays the empty list it was
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, params)
    print(epoch, float(loss), len(grads), "gradients")
