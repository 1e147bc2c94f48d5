# source: https://github.com/ayulockin/interpretabilitycnn/pull/1 (Grad-CAM watching the conv layer's symbolic output, which Keras 3 refuses; the conv output the model returns under the tape is what the gradient is asked of)
# expect: cause=cannot-watch line=17
import numpy as np
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
image_input = keras.Input((16, 16, 3))
features = keras.layers.Conv2D(4, 3, activation="relu", name="last_conv")(image_input)
scores = keras.layers.Dense(3, activation="softmax")(keras.layers.GlobalAveragePooling2D()(features))
model = keras.Model(image_input, scores)
cam_model = keras.Model(model.inputs, [model.get_layer("last_conv").output, model.output])


def heatmap(image, class_index):
    with tf.GradientTape() as tape:
        tape.watch(cam_model.get_layer("last_conv").output)
        conv_outputs, predictions = cam_model(image)
        score = predictions[:, class_index]
    grads = tape.gradient(score, conv_outputs)
    weights = tf.reduce_mean(grads, axis=(0, 1, 2))
    return tf.reduce_sum(weights * conv_outputs[0], axis=-1)


print(heatmap(np.random.rand(1, 16, 16, 3).astype("float32"), 1).shape)
