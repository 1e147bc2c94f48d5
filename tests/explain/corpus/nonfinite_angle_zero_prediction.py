# source: https://github.com/tensorflow/tensorflow/issues/50854 (an angle loss on tf.complex(y, 0.): the gradient is NaN where a prediction is exactly zero)
# expect: cause=non-finite line=15
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, use_bias=False)])
x = tf.constant([[0.0, 0.0], [1.0, 2.0], [-2.0, 1.0]])  # the first sample is all zeros: its prediction is exactly 0
y_true = tf.constant([[1.0], [-1.0], [1.0]])
optimizer = keras.optimizers.SGD(0.1)

with tf.GradientTape() as tape:
    y_pred = model(x)
    # the angle of a real number seen as complex: its gradient divides by |z|², which is 0 at 0 + 0i
    angle_diff = tf.math.angle(tf.complex(y_true, 0.0)) - tf.math.angle(tf.complex(y_pred, 0.0))
    loss = tf.reduce_mean(tf.square(angle_diff))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
print(grads[0].numpy().ravel())
