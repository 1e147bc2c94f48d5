# source: https://github.com/keras-team/keras/issues/19479 (a custom loop under the 'mixed_float16' policy, the loss not scaled: the small float16 gradients underflow to exactly 0)
# expect: cause=underflow line=17
import keras
import tensorflow as tf

keras.utils.set_random_seed(4)
keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16), keras.layers.Dense(4)])
keras.mixed_precision.set_global_policy("float32")
optimizer = keras.optimizers.SGD(0.1)
x = tf.random.normal((64, 8))
y = tf.random.normal((64, 4))
for step in range(2):
    with tf.GradientTape() as tape:
        prediction = model(x, training=True)  # float16, as the policy computes
        # a loss term weighted far down (a KL weight), in float16: each example's slope is below float16's smallest step
        loss = 1e-6 * tf.reduce_mean(tf.square(prediction - tf.cast(y, prediction.dtype)))
    # no LossScaleOptimizer and no scale_loss: the float16 backward pass flushes every slope to 0
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print([float(tf.reduce_max(tf.abs(g))) for g in grads])
