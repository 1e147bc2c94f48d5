# source: https://www.tensorflow.org/guide/advanced_autodiff
# expect: clean
import tensorflow as tf

x = tf.random.normal([7, 5])
layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)
with tf.GradientTape(persistent=True) as tape:
    y = layer(x)
j = tape.jacobian(y, layer.kernel)
print(j.shape)
