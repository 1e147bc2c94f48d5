# source: https://github.com/tensorflow/tensorflow/issues/23621 (a layer that stores its output in a variable and returns the variable: "No gradients provided")
# expect: cause=state-breaks-path line=20
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)


class MemoryLayer(keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.dense = keras.layers.Dense(units)
        self.units = units

    def build(self, input_shape):
        self.memory = tf.Variable(tf.zeros((8, self.units)), trainable=False)

    def call(self, inputs):
        h = self.dense(inputs)
        self.memory.assign(tf.tanh(h))
        return self.memory


layer = MemoryLayer(3)
head = keras.layers.Dense(1)
optimizer = keras.optimizers.Adam(0.01)
x = tf.random.normal((8, 5))
y = tf.random.normal((8, 1))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(head(layer(x)) - y))
    variables = layer.trainable_variables + head.trainable_variables
    grads = tape.gradient(loss, variables)
    return [g is None for g in grads], loss


for step in range(3):
    missing, loss = train_step(x, y)
print("None gradients:", missing, float(loss))
