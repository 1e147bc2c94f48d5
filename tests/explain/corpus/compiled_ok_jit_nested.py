# source: https://www.tensorflow.org/guide/function (a jit_compile=True step calling a nested tf.function)
# expect: clean
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.05)


@tf.function
def loss_of(x, y):
    return tf.reduce_mean(tf.square(model(x) - y))


@tf.function(jit_compile=True)
def step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_of(x, y)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


x = tf.random.normal((32, 6))
for _ in range(5):
    loss = step(x, tf.reduce_sum(x, axis=1, keepdims=True))
print(float(loss))
