# source: https://github.com/keras-team/keras/issues/3040 (a one-weight linear regression on inputs up to 199 with SGD: the weights go to NaN after a few steps; "realized my learning rate was too high")
# expect: cause=non-finite line=18
import keras
import numpy as np
import tensorflow as tf

x = np.arange(200, dtype="float32")[:, None]
y = 2.0 * x

keras.utils.set_random_seed(3)
model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(learning_rate=0.001)
for step in range(60):
    batch_x, batch_y = x[199 - step:200 - step], y[199 - step:200 - step]  # batch_size=1
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(batch_x) - batch_y))
    # each step overshoots: at inputs near 150, the update is larger than the weight it corrects
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print("weights:", [w.tolist() for w in model.get_weights()])
