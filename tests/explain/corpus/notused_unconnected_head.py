# source: https://github.com/google-deepmind/sonnet/issues/215 ("not all graph variables are connected in each step": the unconnected ones' gradients are None, and the step that combines them fails)
# expect: cause=not-used line=14
import keras
import tensorflow as tf

keras.utils.set_random_seed(14)
inputs = keras.Input((4,))
hidden = keras.layers.Dense(8, activation="relu")(inputs)
model = keras.Model(inputs, [keras.layers.Dense(1, name="head_a")(hidden), keras.layers.Dense(1, name="head_b")(hidden)])
x, y = tf.random.normal((8, 4)), tf.random.normal((8, 1))
with tf.GradientTape() as tape:
    out_a, out_b = model(x)
    # this step trains task a only: head_b's variables are not on the loss's path
    loss = tf.reduce_mean(tf.square(out_a - y))
grads = tape.gradient(loss, model.trainable_variables)
try:
    total = tf.add_n([tf.reduce_sum(tf.square(g)) for g in grads])  # an all-reduce over every gradient
except ValueError as error:
    print("combining the gradients failed:", str(error)[:40])
