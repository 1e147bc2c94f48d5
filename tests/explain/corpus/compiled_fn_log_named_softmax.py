# source: https://www.codeprj.com/zh/blog/a57ae21.html (nonfinite_log_named_softmax.py in a @tf.function step: the loss turns NaN once the softmax output reaches exactly 1.0 and the other classes 0, and y_ * log(y) is 0 * -inf)
# expect: cause=non-finite line=20
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(5)
x = tf.constant(np.random.normal(size=(32, 8)).astype("float32"))
labels = tf.one_hot(np.random.randint(0, 4, size=32), 4)
net = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="tanh"),
                        keras.layers.Dense(4, kernel_initializer=keras.initializers.RandomNormal(stddev=60.0))])
optimizer = keras.optimizers.Adam(1e-3)


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        logits = net(x, training=True)
        probs = keras.ops.softmax(logits)
        loss = -tf.reduce_mean(tf.reduce_sum(labels * tf.math.log(probs), axis=1))
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))
    return loss, grads


for step in range(3):
    loss, grads = train_step(x, labels)
    print(step, float(loss), [bool(tf.reduce_any(tf.math.is_nan(g))) for g in grads])
