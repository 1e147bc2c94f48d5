# source: https://stackoverflow.com/questions/78712449 ("TensorFlow second derivative calculation always returns zero in Quantum PINN solver": nested persistent tapes in a tf.function, and only the inner one watches x)
# expect: cause=unwatched line=16
import keras
import tensorflow as tf

net = keras.Sequential([keras.Input((1,)), keras.layers.Dense(32, activation="tanh"),
                        keras.layers.Dense(32, activation="tanh"), keras.layers.Dense(1)])


def potential(x):
    return 0.5 * tf.square(x)


@tf.function
def residual(x, energy):
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            inner.watch(x)
            psi = net(x)
        dpsi = inner.gradient(psi, x)
    d2psi = outer.gradient(dpsi, x)
    if d2psi is None:  # the report's fallback: the equation then ran without its kinetic term
        d2psi = tf.zeros_like(x)
    return tf.reduce_mean(tf.square(-0.5 * d2psi + (potential(x) - energy) * psi))


points = tf.random.uniform((64, 1), -4.0, 4.0, seed=5)
print("residual", float(residual(points, tf.constant(0.5))))
