# source: https://github.com/experiencor/keras-yolo3/issues/306 (nonfinite_sqrt_zero.py's kind: a model of three inputs whose output is its own masked loss, compiled with a loss that takes its square root; a batch with no object makes it exactly 0)
# expect: cause=non-finite line=19
import numpy as np
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)


class MaskedBoxLoss(keras.layers.Layer):
    def call(self, inputs):
        predicted, true_boxes, object_mask = inputs
        return tf.reduce_sum(object_mask * tf.square(true_boxes - predicted), axis=[1, 2])


def sqrt_of_sum(y_true, y_pred):
    # the layer already computed the loss: this only reduces it
    del y_true
    return tf.sqrt(tf.reduce_sum(y_pred))


image, boxes, mask = keras.Input((8,)), keras.Input((3, 4)), keras.Input((3, 1))
predicted = keras.layers.Reshape((3, 4))(keras.layers.Dense(12)(image))
model = keras.Model([image, boxes, mask], MaskedBoxLoss()([predicted, boxes, mask]))
model.compile(optimizer="adam", loss=sqrt_of_sum)
rows = 8
model.fit([np.random.rand(rows, 8), np.random.rand(rows, 3, 4), np.zeros((rows, 3, 1))], np.zeros(rows),
          batch_size=rows, epochs=1, verbose=0)
print("NaN in the kernel:", bool(np.isnan(model.get_weights()[0]).any()))
