# source: https://github.com/tensorflow/tensorflow/issues/35713 (a Spearman correlation loss: "No gradients provided for any variable"; here its ranks computed in TensorFlow, by a double tf.argsort)
# expect: cause=no-gradient-op line=14
import keras
import tensorflow as tf

keras.utils.set_random_seed(12)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
x = tf.random.normal((16, 5))
y_true = tf.random.normal((16,))
n = 16.0


def ranks(values):  # the rank of each value: 0 for the smallest
    return tf.cast(tf.argsort(tf.argsort(values)), tf.float32)


with tf.GradientTape() as tape:
    y_pred = tf.squeeze(model(x), axis=1)
    rho = 1.0 - 6.0 * tf.reduce_sum(tf.square(ranks(y_true) - ranks(y_pred))) / (n ** 3 - n)
    loss = -rho
print([g is None for g in tape.gradient(loss, model.trainable_variables)])
