# source: https://www.tensorflow.org/guide/mixed_precision
# expect: clean
import keras
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, dtype="float32")])
optimizer = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam(1e-3))
x = tf.random.normal((32, 8))
y = tf.random.normal((32, 1))
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        scaled_loss = optimizer.scale_loss(loss)
    grads = tape.gradient(scaled_loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print(float(loss))
keras.mixed_precision.set_global_policy("float32")
