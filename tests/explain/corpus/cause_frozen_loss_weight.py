# source: https://github.com/clovaai/stargan-v2-tensorflow/issues/15 (a loss weight kept as a Python float and changed between steps: the traced step keeps the value it was traced with)
# expect: cause=frozen-python-state line=22
import keras
import tensorflow as tf

keras.utils.set_random_seed(3)
encoder = keras.layers.Dense(8, activation="tanh")
head = keras.layers.Dense(1)
aux_head = keras.layers.Dense(1)
for layer, width in ((encoder, 4), (head, 8), (aux_head, 8)):
    layer.build((None, width))
optimizer = keras.optimizers.SGD(0.05)
x = tf.random.normal((32, 4))
y = tf.random.normal((32, 1))
aux_weight = 0.0  # the auxiliary loss is off while the encoder warms up


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        h = encoder(x)
        loss = tf.reduce_mean(tf.square(head(h) - y)) + aux_weight * tf.reduce_mean(tf.square(aux_head(h) - y))
    variables = encoder.trainable_variables + head.trainable_variables + aux_head.trainable_variables
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return grads


for step in range(6):
    if step == 2:
        aux_weight = 1.0  # switched on, but the traced step still multiplies by 0.0
    grads = train_step(x, y)
print([float(tf.reduce_max(tf.abs(g))) for g in grads[-2:]])
