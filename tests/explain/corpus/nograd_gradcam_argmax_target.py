# source: http://xiaobeizi.cn/x/6VuucqQqcq (Grad-CAM on tf.keras: the tape's target is tf.argmax(predictions), an integer with no gradient, so the gradient for the last convolution's output is None; the answer takes the top class's score instead)
# expect: cause=no-gradient-op line=21
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(21)
inputs = keras.Input((16, 16, 3))
features = keras.layers.Conv2D(6, 3, padding="same", activation="relu", name="last_conv")(inputs)
pooled = keras.layers.GlobalAveragePooling2D()(features)
outputs = keras.layers.Dense(5, activation="softmax")(pooled)
classifier = keras.Model(inputs, outputs)
grad_model = keras.Model(classifier.inputs, [classifier.get_layer("last_conv").output, classifier.output])
images = np.random.default_rng(21).random((2, 16, 16, 3)).astype("float32")


def heatmap(batch):
    with tf.GradientTape() as tape:
        conv_maps, predictions = grad_model(batch)
        # the class the model picked, as Grad-CAM's target: an argmax is an index, and has no gradient
        top_class = tf.argmax(predictions, axis=-1)
    grads = tape.gradient(top_class, conv_maps)
    weights = tf.reduce_mean(grads, axis=(1, 2))
    return tf.nn.relu(tf.einsum("bhwc,bc->bhw", conv_maps, weights))


print(heatmap(images).shape)
