# source: https://isolution.pro/q/so69914111/tensorflow-2-wa-kobai-o-keisanshimasen (a feature map's gradient asked of pic[0], a slice the gradient call itself makes after the target was computed)
# expect: cause=not-used line=15
import numpy as np
import keras
import tensorflow as tf

keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3, activation="relu")])
picture = tf.convert_to_tensor(np.random.uniform(size=(1, 8, 8, 3)).astype("float32"))
with tf.GradientTape() as tape:
    tape.watch(picture)
    feature_map = model(picture)[0][:, :, 2]
    loss = tf.reduce_mean(feature_map)
print(float(loss))
print(tape.gradient(loss, picture[0]))
