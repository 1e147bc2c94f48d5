# source: https://www.tensorflow.org/guide/advanced_autodiff
# expect: clean
import tensorflow as tf

x = tf.random.normal([7, 5])
layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)
with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
    tape.watch(x)
    y = layer2(layer1(x))
jb = tape.batch_jacobian(y, x)
print(jb.shape)
