# source: https://markaicode.com/custom-gradients-non-differentiable-losses
# expect: cause=no-gradient-op line=8
import keras
import tensorflow as tf


def problematic_loss(y_true, y_pred):
    y_pred_binary = tf.cast(y_pred > 0.5, tf.float32)
    return tf.reduce_mean(tf.square(y_true - y_pred_binary))


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
x = tf.random.normal((8, 4))
y = tf.ones((8, 1))
with tf.GradientTape() as tape:
    loss = problematic_loss(y, model(x))
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
