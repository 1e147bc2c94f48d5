# source: https://keras.io/api/models/model_training_apis/ (loss_weights: an auxiliary head switched off with weight 0)
# expect: cause=not-known line=20
import keras
import tensorflow as tf

keras.utils.set_random_seed(2)
inputs = keras.Input((16,))
body = keras.layers.Dense(8, activation="tanh")(inputs)
main = keras.layers.Dense(1)(body)
aux = keras.layers.Dense(1, activation="sigmoid", kernel_initializer=keras.initializers.Constant(5.0))(inputs)
model = keras.Model(inputs, [main, aux])
aux_head = model.layers[-1]
x = tf.random.uniform((32, 16), 1.0, 2.0)
y_main = tf.random.normal((32, 1))
y_aux = tf.ones((32, 1))
aux_weight = 0.0  # the auxiliary loss is switched off for the warm-up
with tf.GradientTape() as tape:
    out_main, out_aux = model(x)
    loss = tf.reduce_mean(tf.square(out_main - y_main)) + aux_weight * tf.reduce_mean(tf.square(out_aux - y_aux))
grads = tape.gradient(loss, aux_head.trainable_variables)  # zero: the auxiliary head does not count yet
print([float(tf.reduce_max(tf.abs(g))) for g in grads])
