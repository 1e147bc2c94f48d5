# source: https://github.com/keras-team/keras/issues/7057 (too high a learning rate pushes ReLU units into the never-active zone)
# expect: cause=dead-relu line=7
import keras
import tensorflow as tf

keras.utils.set_random_seed(3)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(learning_rate=5.0)
x = tf.random.uniform((64, 4))
y = 10.0 + tf.random.uniform((64, 1))
first_layer = model.layers[0]
for step in range(4):
    with tf.GradientTape() as tape:
        prediction = model(x)
        loss = tf.reduce_mean(tf.square(prediction - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    print(step, float(loss), float(tf.reduce_max(tf.abs(grads[0]))))
