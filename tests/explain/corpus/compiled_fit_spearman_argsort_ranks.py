# source: https://github.com/tensorflow/tensorflow/issues/35713 (nograd_spearman_argsort_ranks.py compiled, as the issue has it: a Spearman correlation loss given to compile and fit: "No gradients provided for any variable"; its ranks by a double tf.argsort)
# expect: cause=no-gradient-op line=14
import keras
import tensorflow as tf

keras.utils.set_random_seed(12)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
x = tf.random.normal((16, 5))
y_true = tf.random.normal((16, 1))
n = 16.0


def ranks(values):  # the rank of each value: 0 for the smallest
    return tf.cast(tf.argsort(tf.argsort(values)), tf.float32)


def spearman_loss(y_true, y_pred):
    y_true, y_pred = tf.squeeze(y_true, axis=1), tf.squeeze(y_pred, axis=1)
    rho = 1.0 - 6.0 * tf.reduce_sum(tf.square(ranks(y_true) - ranks(y_pred))) / (n ** 3 - n)
    return -rho


model.compile(optimizer="adam", loss=spearman_loss)
try:
    model.fit(x, y_true, batch_size=16, epochs=1, verbose=0)
except ValueError as error:
    print("fit failed:", str(error)[:60])
