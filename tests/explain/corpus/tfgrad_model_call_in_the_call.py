# source: https://www.whosebug.com/question/4868852/How-do-I-get-the-gradient-of-a-keras-model-with-respect-to-its-inputs (a model's gradient with respect to its input asked of tf.gradients, the model called inside the call, in eager mode)
# expect: cause=tf-gradients-eager line=15
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(4)
inputs = keras.Input((3,))
hidden = keras.layers.Dense(10, activation="tanh")(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(hidden))

data = np.random.default_rng(4).random((4, 3)).astype("float32")
print("prediction:", model.predict(data, verbose=0).ravel())
x = tf.convert_to_tensor(data)
gradients = tf.gradients(model(x), x)
print("gradients:", gradients)
