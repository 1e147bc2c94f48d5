# source: https://vasteelab.com/?p=2365 (ja: the loss computed once before the tape, then called inside it as the function it was meant to be: "TypeError: 'EagerTensor' object is not callable")
# expect: cause=outside-tape line=15
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
x = tf.random.normal((8, 3))
y = tf.random.normal((8, 1))
loss_object = keras.losses.MeanSquaredError()
optimizer = keras.optimizers.Adam(0.01)

loss = loss_object(y, model(x))
with tf.GradientTape() as tape:
    value = loss()
grads = tape.gradient(value, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
