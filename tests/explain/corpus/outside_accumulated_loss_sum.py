# source: https://stackoverflow.com/questions/59893850 (gradient accumulation: the losses summed after each tape closed)
# expect: cause=outside-tape line=17
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
micro_batches = [(tf.random.normal((4, 8)), tf.random.normal((4, 1))) for _ in range(3)]

# the batch is split in three to save memory; the three losses are added up and differentiated once
total_loss = 0.0
for x, y in micro_batches:
    with tf.GradientTape() as tape:
        prediction = model(x)
        loss = tf.reduce_mean(tf.square(prediction - y))
    # the sum is taken after the block: no tape records it
    total_loss += loss
grads = tape.gradient(total_loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
