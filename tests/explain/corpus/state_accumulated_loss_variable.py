# source: https://github.com/fchollet/deep-learning-with-python-notebooks/issues/43 (the loss summed term by term with K.update_add, an assign_add on a variable: the gradient is None)
# expect: cause=state-breaks-path line=15
import keras
import tensorflow as tf

keras.utils.set_random_seed(9)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])
image = tf.random.normal((1, 6))
loss = tf.Variable(0.0)
coefficients = {0: 0.5, 1: 2.0}
with tf.GradientTape() as tape:
    activation = model(image)
    loss.assign(0.0)
    for index, coefficient in coefficients.items():
        loss.assign_add(coefficient * tf.reduce_sum(tf.square(activation[:, index])))
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
