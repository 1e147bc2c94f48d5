# source: https://github.com/stan-dev/math/issues/3031 (nonfinite_pow_gamma_zero.py's kind: pow(squared_distance(x, x), 0.5): an infinite slope at a distance of 0; here a distance in a @tf.function step)
# expect: cause=non-finite line=14
import tensorflow as tf

anchor = tf.Variable([1.0, 2.0])
positive = tf.constant([1.0, 2.0])  # the pair already coincides
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def step():
    with tf.GradientTape() as tape:
        squared = tf.reduce_sum(tf.square(anchor - positive))
        distance = squared ** 0.5
    grads = tape.gradient(distance, [anchor])
    optimizer.apply_gradients(zip(grads, [anchor]))
    return grads[0]


for _ in range(3):  # a training loop
    print(step())
