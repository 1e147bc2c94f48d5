# source: https://tutorialexample.com/understand-softmax-function-gradient-a-beginner-guide-deep-learning-tutorial (a softmax whose outputs sit at 0 and 1 has a gradient near 0, so its weights do not update)
# expect: cause=saturation line=14
import keras
import numpy as np
import tensorflow as tf

np.random.seed(1)
tf.random.set_seed(1)
X = np.random.randn(256, 20).astype("float32")
Y = keras.utils.to_categorical(np.random.randint(0, 5, 256), 5)

model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(5, activation="softmax",
                       kernel_initializer=keras.initializers.RandomNormal(stddev=50.0)),
])
model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
w0 = model.get_weights()[0].copy()
for step in range(20):
    model.train_on_batch(X, Y)
print("max weight change:", float(np.abs(model.get_weights()[0] - w0).max()))
