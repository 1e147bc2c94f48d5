# source: https://github.com/tensorflow/tensorflow/issues/57392
# expect: clean
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((6, 3)), keras.layers.LSTM(8), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
x = tf.random.normal((4, 6, 3))
y = tf.random.normal((4, 1))
for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 1.0)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print(float(loss))
