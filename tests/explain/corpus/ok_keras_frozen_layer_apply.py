# source: https://keras.io/guides/transfer_learning/ (a frozen base, a custom loop over the trainable weights)
# expect: clean
import keras
import tensorflow as tf

base = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu")])
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-2)
x = tf.random.normal((32, 6))
y = tf.random.normal((32, 1))
for _ in range(5):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
print(float(loss))
