# source: https://github.com/tensorflow/tensorflow/issues/50854 (nonfinite_angle_zero_prediction.py compiled: the angle loss on tf.complex(y, 0.) given to compile and fit; its gradient is NaN where a prediction is exactly zero, and the weights turn NaN)
# expect: cause=non-finite line=13
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, use_bias=False)])
x = tf.constant([[0.0, 0.0], [1.0, 2.0], [-2.0, 1.0]])  # the first sample is all zeros: its prediction is exactly 0
y_true = tf.constant([[1.0], [-1.0], [1.0]])


def angle_loss(y_true, y_pred):  # the angle of a real number seen as complex: its gradient divides by |z|²
    angle_diff = tf.math.angle(tf.complex(y_true, 0.0)) - tf.math.angle(tf.complex(y_pred, 0.0))
    return tf.reduce_mean(tf.square(angle_diff))


model.compile(optimizer=keras.optimizers.SGD(0.1), loss=angle_loss)
model.fit(x, y_true, batch_size=3, epochs=3, verbose=0)
print(model.get_weights()[0].ravel())
