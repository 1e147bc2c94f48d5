# source: https://github.com/tensorflow/tensorflow/issues/65839 (cause_custom_gradient_keyword.py with its step in a @tf.function: traced, TensorFlow refuses a tensor given to a tf.custom_gradient function by keyword outright, before any gradient is asked for)
# expect: cause=custom-gradient-signature line=25
import keras
import tensorflow as tf


@tf.custom_gradient
def clip_gradients(x, clip_norm):
    def grad(upstream):
        return tf.clip_by_norm(upstream, clip_norm), None  # no gradient for the norm itself

    return tf.identity(x), grad


keras.utils.set_random_seed(3)
encoder = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="tanh")])
head = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.05)


@tf.function
def train_step(features, limit):
    with tf.GradientTape() as tape:
        hidden = encoder(features)
        hidden = clip_gradients(hidden, clip_norm=limit)
        loss = tf.reduce_mean(tf.square(head(hidden)))
    variables = encoder.trainable_variables + head.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss


for step in range(3):
    print(step, float(train_step(tf.random.normal((10, 6)), tf.constant(0.5))))
