# source: https://cloud.tencent.cn/developer/information/%E6%97%A0%E6%B3%95%E8%AE%A9GradientTape%E6%8F%90%E4%BE%9B%E9%9D%9E%E7%A9%BA%E7%BB%93%E6%9E%9C (zh, run eagerly: integer pixels watched, then cast to float inside the tape: the gradient with respect to them is None)
# expect: cause=cannot-watch line=15
import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(1)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
pixels = tf.constant(np.random.default_rng(1).integers(0, 255, (2, 3)))



def input_gradient(image):
    with tf.GradientTape() as tape:
        tape.watch(image)
        out = model(tf.cast(image, tf.float32) / 255.0)
    return tape.gradient(out, image)


print("d out / d pixels:", input_gradient(pixels))
