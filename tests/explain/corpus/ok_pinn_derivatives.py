# source: https://github.com/keras-team/keras/issues/19874
# expect: clean
import keras
import tensorflow as tf

net = keras.Sequential([keras.Input((1,)), keras.layers.Dense(16, activation="tanh"), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
r = tf.random.uniform((32, 1))
for step in range(2):
    with tf.GradientTape() as tape:
        with tf.GradientTape() as inner:
            inner.watch(r)
            u = net(r)
        du_dr = inner.gradient(u, r)
        loss = tf.reduce_mean(tf.square(du_dr - tf.cos(r))) + tf.reduce_mean(tf.square(u[:1]))
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))
print(float(loss))
