# source: https://github.com/keras-team/keras/issues/19479 (the fixed program: Keras 3's LossScaleOptimizer.scale_loss in the @tf.function step)
# expect: clean
import keras
import tensorflow as tf

keras.utils.set_random_seed(6)
keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4)])
keras.mixed_precision.set_global_policy("float32")
optimizer = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.1))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        prediction = model(x, training=True)
        loss = 1e-6 * tf.reduce_mean(tf.square(tf.cast(prediction, tf.float32) - y))
        scaled_loss = optimizer.scale_loss(loss)  # the slopes are scaled up before float16 can flush them
    gradients = tape.gradient(scaled_loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


for step in range(2):
    train_step(tf.random.normal((64, 8)), tf.random.normal((64, 4)))
print(float(tf.reduce_max(tf.abs(model.trainable_variables[0]))))
