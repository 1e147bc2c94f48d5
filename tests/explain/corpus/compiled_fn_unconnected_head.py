# source: https://github.com/google-deepmind/sonnet/issues/215 (notused_unconnected_head.py compiled with XLA: "not all graph variables are connected in each step", the step a @tf.function(jit_compile=True) that returns every gradient, the combining step then fails on the unconnected ones' None)
# expect: cause=not-used line=17
import keras
import tensorflow as tf

keras.utils.set_random_seed(14)
inputs = keras.Input((4,))
hidden = keras.layers.Dense(8, activation="relu")(inputs)
model = keras.Model(inputs, [keras.layers.Dense(1, name="head_a")(hidden), keras.layers.Dense(1, name="head_b")(hidden)])
x, y = tf.random.normal((8, 4)), tf.random.normal((8, 1))


@tf.function(jit_compile=True)  # XLA: dense layers and a mean compile
def task_a_step(x, y):
    with tf.GradientTape() as tape:
        out_a, out_b = model(x, training=True)
        loss = tf.reduce_mean(tf.square(out_a - y))  # task a only: head_b is not on this loss's path
    return tape.gradient(loss, model.trainable_variables)


grads = task_a_step(x, y)
try:
    total = tf.add_n([tf.reduce_sum(tf.square(g)) for g in grads])  # an all-reduce over every gradient
except ValueError as error:
    print("combining the gradients failed:", str(error)[:40])
