# source: https://github.com/stanfordmlgroup/nlc/issues/7 (an RNN trained for a while: "grad norm nan, param norm nan"; here a ReLU RNN whose recurrent weights grow the gradient at every time step, in a training loop)
# expect: cause=non-finite line=21
import keras
import tensorflow as tf

keras.utils.set_random_seed(8)
model = keras.Sequential([
    keras.Input((60, 4)),
    keras.layers.SimpleRNN(16, activation="relu", recurrent_initializer=keras.initializers.Identity(gain=1.6)),
    keras.layers.Dense(1),
])
x = tf.abs(tf.random.normal((8, 60, 4)))
y = tf.random.normal((8, 1))
optimizer = keras.optimizers.SGD(0.01)


def train_step(inputs, targets):
    with tf.GradientTape() as tape:
        predictions = model(inputs)
        loss = tf.reduce_mean(tf.square(predictions - targets))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return float(loss)


print([train_step(x, y) for _ in range(3)])
