# source: https://keras.io/guides/transfer_learning/ (cause_frozen_base_fine_tune.py compiled: base_model.trainable = False for the first phase; the fine-tuning phase, a @tf.function train step, asks for the base's trainable weights without unfreezing it)
# expect: cause=unwatched line=11
import keras
import tensorflow as tf

keras.utils.set_random_seed(5)
base = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu")], name="base")
head = keras.layers.Dense(1)
model = keras.Sequential([base, head])
optimizer = keras.optimizers.Adam(1e-5)  # the guide's small fine-tuning rate
base.trainable = False  # phase one: train the head only
x = tf.random.normal((16, 6))
y = tf.random.normal((16, 1))


@tf.function
def fine_tune_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    # the base was never unfrozen: its trainable_variables is empty
    grads = tape.gradient(loss, base.trainable_variables)
    optimizer.apply_gradients(zip(grads, base.trainable_variables))
    return loss, len(grads)


print(fine_tune_step(x, y))
