# source: https://github.com/tensorflow/tensorflow/issues/56657 (Grad-CAM of a segmentation network whose last layer is a softmax: tf.GradientTape returns all 0 values)
# expect: cause=saturation line=12
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(4)
inputs = keras.Input((32, 64, 3))
x = keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="last_conv")(inputs)
x = keras.layers.Conv2D(2, 1)(x)
x = keras.layers.Conv2DTranspose(2, 2, strides=1, padding="same")(x)
outputs = keras.layers.Activation("softmax")(x)
model = keras.Model(inputs, outputs)
# a trained network is sure of every pixel: its scores are far apart
kernel, bias = model.layers[2].get_weights()
model.layers[2].set_weights([kernel, np.array([400.0, 0.0], "float32")])


@tf.function
def grad_cam(model, image, layer_name, class_index):
    grad_model = keras.Model(model.inputs, [model.get_layer(layer_name).output, model.output])
    with tf.GradientTape() as tape:
        conv_output, predictions = grad_model(image)
        score = tf.reduce_sum(predictions[..., class_index])
    grads = tape.gradient(score, conv_output)
    weights = tf.reduce_mean(grads, axis=(1, 2))
    return tf.nn.relu(tf.reduce_sum(conv_output * weights[:, None, None, :], axis=-1)), grads


image = np.random.default_rng(4).uniform(size=(1, 32, 64, 3)).astype("float32")
heatmap, grads = grad_cam(model, image, "last_conv", 1)
print("largest |gradient|:", float(tf.reduce_max(tf.abs(grads))))
