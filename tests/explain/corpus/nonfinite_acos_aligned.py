# source: https://github.com/tensorflow/tensorflow/issues/57786 (the NaN gradient of tf.acos at 1: an angle loss whose cosine is exactly 1 where a prediction already points along its target)
# expect: cause=non-finite line=17
# how: edge
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3, use_bias=False)])
opt = keras.optimizers.SGD(0.01)
x = tf.random.normal((8, 6))
target = tf.concat([model(x[:4]), tf.random.normal((4, 3))], axis=0)  # half of them already where the model points

for step in range(2):
    with tf.GradientTape() as tape:
        unit_pred = tf.math.l2_normalize(model(x, training=True), axis=1)
        unit_target = tf.math.l2_normalize(target, axis=1)
        angle = tf.acos(tf.reduce_sum(unit_pred * unit_target, axis=1))
        loss = tf.reduce_mean(angle)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    print(step, float(loss), "nan in grad:", bool(tf.reduce_any(tf.math.is_nan(grads[0]))))
