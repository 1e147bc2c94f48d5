# source: http://stackoverflow.com.mevn.net/questions/52800582/why-do-i-fail-to-predict-y-x4-with-keras-y-x3-works (inputs in [-100, 100] fed to a sigmoid layer: "Because this is fed into a sigmoid activation it is likely to saturate", and the weight updates, proportional to its slope, vanish)
# expect: cause=saturation line=13
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(5)
x = np.linspace(-100, 100, 256, dtype="float32")[:, None]
y = x ** 4 / 1e8  # the targets scaled, the inputs not

model = keras.Sequential([
    keras.Input((1,)),
    keras.layers.Dense(10, activation="sigmoid", kernel_initializer=keras.initializers.RandomNormal(stddev=3.0)),
    keras.layers.Dense(10, activation="elu"),
    keras.layers.Dense(1),
])
optimizer = keras.optimizers.Adam(1e-3)
for step in range(20):
    batch = slice(step % 8 * 32, step % 8 * 32 + 32)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x[batch]) - y[batch]))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print("first layer's outputs at exactly 0 or 1:", float(np.mean(np.isin(model.layers[0](x).numpy(), [0.0, 1.0]))))
