# source: https://keras.io/examples/vision/simsiam/ (the loss stops the gradient of its target branch)
# expect: clean
import keras
import tensorflow as tf

encoder = keras.Sequential([keras.Input((8,)), keras.layers.Dense(6)])
predictor = keras.Sequential([keras.Input((6,)), keras.layers.Dense(6)])
optimizer = keras.optimizers.SGD(0.05)


def compute_loss(p, z):
    z = tf.stop_gradient(z)  # the target branch is not trained by this term
    p, z = tf.math.l2_normalize(p, axis=1), tf.math.l2_normalize(z, axis=1)
    return -tf.reduce_mean(tf.reduce_sum(p * z, axis=1))


x = tf.random.normal((8, 8))
one, two = x + 0.1 * tf.random.normal((8, 8)), x + 0.1 * tf.random.normal((8, 8))
variables = encoder.trainable_variables + predictor.trainable_variables
for step in range(3):
    with tf.GradientTape() as tape:
        z1, z2 = encoder(one), encoder(two)
        p1, p2 = predictor(z1), predictor(z2)
        loss = compute_loss(p1, z2) / 2 + compute_loss(p2, z1) / 2
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
