# source: https://github.com/tensorflow/tensorflow/issues/50454 (gradient accumulation: each micro-batch's gradients added into variables with assign_add, applied every few steps)
# expect: clean
import keras
import tensorflow as tf

keras.utils.set_random_seed(10)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.05)
accumulated = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]
steps = 2
for step in range(4):
    x, y = tf.random.normal((8, 4)), tf.random.normal((8, 1))
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y)) / steps
    for total, grad in zip(accumulated, tape.gradient(loss, model.trainable_variables)):
        total.assign_add(grad)  # the gradients are accumulated, not the loss
    if (step + 1) % steps == 0:
        optimizer.apply_gradients(zip([tf.convert_to_tensor(t) for t in accumulated], model.trainable_variables))
        for total in accumulated:
            total.assign(tf.zeros_like(total))
print(float(loss))
