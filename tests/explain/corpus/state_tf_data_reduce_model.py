# source: https://www.tensorflow.org/guide/autodiff (tf.data.Dataset iterators are stateful and stop all gradients; see tensorflow/tensorflow#36306)
# expect: cause=state-breaks-path line=11
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
features = tf.random.normal((12, 3))
targets = tf.random.normal((12, 1))
with tf.GradientTape() as tape:
    errors = tf.square(model(features) - targets)
    batches = tf.data.Dataset.from_tensor_slices(errors).batch(4)
    # the mean of the batch losses, summed by the pipeline
    loss = batches.reduce(tf.constant(0.0), lambda total, batch: total + tf.reduce_mean(batch)) / 3.0
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
