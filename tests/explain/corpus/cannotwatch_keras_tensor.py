# source: https://github.com/tensorflow/tensorflow/issues/104521
# expect: cause=cannot-watch line=11
import keras
import tensorflow as tf

inputs = keras.Input((4,))
model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
images = tf.random.normal((3, 4))
try:
    with tf.GradientTape() as tape:
        tape.watch(model.inputs)
        predictions = model(images)
    print(tape.gradient(predictions, model.inputs))
except ValueError as error:
    print("ValueError:", str(error)[:70])
