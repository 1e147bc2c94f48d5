# source: https://github.com/keras-team/keras/issues/20894 (mixed_float16_unscaled_loss.py as the mixed-precision guide's @tf.function train_step, its get_scaled_loss left out as Keras 3 has none)
# expect: cause=underflow line=17
import keras
import tensorflow as tf

keras.utils.set_random_seed(6)
keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
keras.mixed_precision.set_global_policy("float32")
optimizer = keras.optimizers.SGD(0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        prediction = model(x, training=True)
        loss = 1e-6 * tf.reduce_mean(tf.square(prediction - tf.cast(y, prediction.dtype)))
    # the guide's optimizer.get_scaled_loss / get_unscaled_gradients removed: the float16 slopes underflow to 0
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return gradients


for step in range(2):
    grads = train_step(tf.random.normal((64, 8)), tf.random.normal((64, 4)))
print([float(tf.reduce_max(tf.abs(g))) for g in grads])
