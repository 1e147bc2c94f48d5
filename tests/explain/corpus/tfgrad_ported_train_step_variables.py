# source: https://github.com/Alejogb1/job-board/blob/79975aa2db0354ab7266c0d3063adbd87b21f484/gpu-blog-data/why-is-tfgradients-unsupported-with-eager-execution-enabled.md (a TF1 training step ported to TF 2 as it was: tf.gradients of the loss with respect to the model's variables, run eagerly)
# expect: cause=tf-gradients-eager line=19
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(14)
rng = np.random.default_rng(14)
inputs = rng.normal(size=(48, 3)).astype("float32")
outputs = (inputs @ np.array([[0.5], [-1.0], [2.0]], "float32")).astype("float32")
network = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)])
sgd = keras.optimizers.SGD(0.1)


def fit_batch(x, y):
    predicted = network(x)
    error = predicted - y
    cost = tf.reduce_mean(error * error)
    gradients = tf.gradients(cost, network.trainable_variables)
    sgd.apply_gradients(zip(gradients, network.trainable_variables))
    return cost


for _ in range(3):
    try:
        print(float(fit_batch(inputs, outputs)))
    except RuntimeError as failure:
        print("RuntimeError:", failure)
        break
