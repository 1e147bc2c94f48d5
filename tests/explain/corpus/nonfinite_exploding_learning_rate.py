# source: https://github.com/tensorflow/tensorflow/issues/38796 (a high learning rate with SGD: the loss becomes inf, then NaN; "when I decrease the learning rate, it is of less probability to happen")
# expect: cause=non-finite line=16
import keras
import tensorflow as tf

keras.utils.set_random_seed(6)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
x = tf.random.normal((32, 8)) * 10.0
y = tf.reduce_sum(x, axis=1, keepdims=True)
optimizer = keras.optimizers.SGD(learning_rate=1.0)  # far too large for these inputs: every step overshoots

for step in range(12):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    # each step's gradient is larger than the last, until it overflows to inf and NaN
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print(float(loss))
